// Scenario: a blocked create and the delete held for it sit in the middle of a long plan; the terminal plan ends with
// them named (as terraform ends with its warnings), and the Markdown comment names them above its folded sections.
import { describe, expect, it } from 'vitest';
import { BLOCKED_SHOWN } from '../../../lambdas/core/render/blocked-lines.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { ANALYTICS, change, plan } from '../../helpers/cli-plans.ts';

const HELD = 'not deleted: the create of "ssl-stale" in this project is blocked; deletes run only once every create';
const BLOCKED = plan([
  change({ key: 'host-ssl', action: 'blocked', id: 'i1', reason: HELD }),
  change({ key: 'ssl-stale', action: 'blocked', after: { eventTypeName: 'X' }, reason: 'secret reference missing' }),
  change({ key: 'a', action: 'create', after: { eventTypeName: 'HOST_DOWN' } }),
  change({ target: ANALYTICS, key: 'b', action: 'noop' }),
]);

describe('blocked changes named at the end of the plan', () => {
  it('the text plan lists them, the held delete said to be one, just before the summary line', () => {
    const lines = renderPlanText(BLOCKED).trimEnd().split('\n');
    expect(lines.slice(-5)).toEqual([
      'Blocked: 2 changes are not applied until resolved (reasons under each change above):',
      '  ! Project payments-prod (5e2211c17a3e5a48f5497de3): alertConfig "host-ssl" (id i1) (delete held)',
      '  ! Project payments-prod (5e2211c17a3e5a48f5497de3): alertConfig "ssl-stale"',
      '',
      'Plan: 1 to create, 0 to update, 0 to delete, 0 to adopt, 2 blocked, 0 drifted, 1 unchanged.',
    ]);
    // Named once at the end, the reasons stay under each change only.
    expect(renderPlanText(BLOCKED).split(HELD).length).toBe(2);
  });

  it('the Markdown comment lists them outside the collapsed sections, before the first one', () => {
    const md = renderPlanMarkdown(BLOCKED);
    const list = md.indexOf('**Blocked: 2 changes are not applied until resolved (reasons in the sections below):**');
    expect(list).toBeGreaterThan(0);
    expect(list).toBeLessThan(md.indexOf('<details>'));
    expect(md).toContain(
      '- Project payments-prod (5e2211c17a3e5a48f5497de3): alertConfig "host-ssl" (id i1) (delete held)\n' +
        '- Project payments-prod (5e2211c17a3e5a48f5497de3): alertConfig "ssl-stale"\n',
    );
  });

  it('a plan with nothing blocked has no such list, and a thousand blocked are named twenty and counted', () => {
    expect(renderPlanText(plan([change({ action: 'create', after: {} })]))).not.toContain('Blocked');
    const many = plan(
      Array.from({ length: BLOCKED_SHOWN + 5 }, (_, i) => change({ key: `k${i}`, action: 'blocked', reason: 'r' })),
    );
    const text = renderPlanText(many);
    expect(text.match(/^ {2}! Project/gm)?.length).toBe(BLOCKED_SHOWN);
    expect(text).toContain('  ! ... and 5 more (each is listed in --json)\n');
  });
});
