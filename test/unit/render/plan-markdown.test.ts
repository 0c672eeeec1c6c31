// Scenario: `--markdown` renders a PR comment: summary, per-target table, collapsible diff blocks, nothing that breaks out.
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { ANALYTICS, change, plan } from '../../helpers/cli-plans.ts';

describe('renderPlanMarkdown', () => {
  it('renders a small plan exactly', () => {
    const p = plan([
      change({ key: 'a', action: 'create', after: { eventTypeName: 'HOST_DOWN' } }),
      change({ target: ANALYTICS, key: 'b', action: 'noop' }),
    ]);
    expect(renderPlanMarkdown(p)).toBe(
      [
        '### opsman-gitops plan',
        '',
        '**Plan: 1 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 1 unchanged.**',
        '',
        '| Target | Create | Update | Delete | Adopt | Blocked | Drifted | Unchanged |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        '| Project payments-prod (5e2211c17a3e5a48f5497de3) | 1 | 0 | 0 | 0 | 0 | 0 | 0 |',
        '| Project analytics-dev (5e2211c17a3e5a48f5497de6) | 0 | 0 | 0 | 0 | 0 | 0 | 1 |',
        '',
        '<details><summary><b>Project payments-prod (5e2211c17a3e5a48f5497de3)</b>: 1 to create</summary>',
        '',
        '```diff',
        '+ alertConfig "a"',
        '    eventTypeName: "HOST_DOWN"',
        '```',
        '',
        '</details>',
        '',
        '<sub>run 20261121T100000Z-abcdef, desired state dddddddddddd</sub>',
        '',
      ].join('\n'),
    );
  });

  it('says no changes and notes a non-apply mode', () => {
    const text = renderPlanMarkdown(plan([change()], { mode: 'observe' }));
    expect(text).toContain('Mode `observe`: nothing will be written.');
    expect(text).toContain('No changes. Ops Manager matches the desired state.');
    expect(text).not.toContain('<details>');
  });

  it('uses a longer fence when a value holds backticks', () => {
    const p = plan([change({ key: 'k', action: 'update', fields: [{ path: 'x', before: 'a```b', after: 'c' }] })]);
    const text = renderPlanMarkdown(p);
    expect(text).toContain('````diff');
    expect(text).toContain('\n````\n');
  });

  it.each([
    ['a|b', 'a\\|b'],
    ['<script>', '&lt;script&gt;'],
    ['`x`', '\\`x\\`'],
    ['a & b', 'a &amp; b'],
  ])('escapes %s', (input, output) => {
    expect(escapeMarkdown(input)).toBe(output);
  });

  it('lists failures', () => {
    const text = renderPlanMarkdown(
      plan([], { failures: [{ target: ANALYTICS, phase: 'apply', message: 'PUT failed: 500' }] }),
    );
    expect(text).toContain(
      '**Failures**\n\n- Project analytics-dev (5e2211c17a3e5a48f5497de6) [apply]: PUT failed: 500\n',
    );
  });
});
