// Scenario: the Markdown comment quotes twenty warnings; an update fight whose warning is past them has a change line that says the way out itself (ignoreFields first for an alert config fought over in `enabled`), never a dangling "(see the warning)"; one whose warning is quoted keeps the pointer.
import { describe, expect, it } from 'vitest';
import { fightWarning } from '../../../lambdas/core/fight-notice.ts';
import { type Change, type FightNotice, PLAN_FORMAT_VERSION, type Plan } from '../../../lambdas/core/model.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';

const NOTICE: FightNotice = {
  runs: 3,
  since: '2026-11-01T10:00:00.000Z',
  actors: [{ actor: 'jdoekey1', actorType: 'apiKey' }],
  fields: ['enabled'],
};

const FIGHT: Change = {
  target: { type: 'project', id: 'p1', name: 'payments-prod' },
  kind: 'alertConfig',
  key: 'no-primary',
  action: 'update',
  id: 'c1',
  fields: [{ path: 'enabled', before: false, after: true }],
  reason: 'differs',
  drift: { detected: true, fight: NOTICE },
};

/** A plan with the fight's change and its warning after `others` other warnings (fight warnings come last). */
function planWith(others: number): Plan {
  const warnings = Array.from({ length: others }, (_, i) => `another warning number ${i + 1}`);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'r',
    createdAt: '2026-11-01T10:30:00.000Z',
    mode: 'apply',
    desired: { digest: 'd'.repeat(64), files: [] },
    liveDigests: { 'project:p1': 'x' },
    changes: [FIGHT],
    failures: [],
    warnings: [...warnings, fightWarning(FIGHT, NOTICE)],
  };
}

const LINE = 'update fight: changed outside opsman-gitops on 3 consecutive runs since 2026-11-01T10:00:00.000Z';

describe('fight lines of the Markdown comment', () => {
  it('a fight warning past the twenty quoted: the change line carries the way out, no pointer', () => {
    const markdown = renderPlanMarkdown(planWith(20));
    expect(markdown).toContain('> 1 more warnings (in the JSON plan)');
    expect(markdown).not.toContain('UPDATE FIGHT');
    expect(markdown).not.toContain('(see the warning)');
    expect(markdown).toContain(
      `${LINE}: two writers manage it; to leave enabled to the other writer and keep managing the rest, add ignoreFields: [enabled] to alert config "no-primary"; or give it one owner (list "no-primary" in spec.release to leave it to the other writer`,
    );
  });

  it('a fight warning that is quoted: the change line points at it', () => {
    const markdown = renderPlanMarkdown(planWith(19));
    expect(markdown).toContain('UPDATE FIGHT: alert config "no-primary"');
    expect(markdown).toContain(`${LINE} (see the warning)`);
  });
});

describe('a fight warning quoting a Slack channel from the YAML', () => {
  it('pings no GitHub user or team and makes no link: the channel reads as written', () => {
    const notice: FightNotice = {
      ...NOTICE,
      fields: ['notifications[SLACK:@jdoe].intervalMin', 'notifications[SLACK:x](https://evil.example)].delayMin'],
    };
    const change: Change = { ...FIGHT, drift: { detected: true, fight: notice } };
    const markdown = renderPlanMarkdown({
      ...planWith(0),
      changes: [change],
      warnings: [fightWarning(change, notice)],
    });
    const quoted = markdown.split('\n').find((line) => line.startsWith('> **Warning:** UPDATE FIGHT'));
    expect(quoted).toContain(
      '(each time: notifications\\[SLACK:@&#8203;jdoe\\].intervalMin, notifications\\[SLACK:x\\](https://evil.example)\\].delayMin)',
    );
    expect(quoted).not.toMatch(/(^|\W)@jdoe/);
  });
});
