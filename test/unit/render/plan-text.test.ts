// Scenario: whole plans render like `terraform plan` (golden text), with the summary line and colour only when asked.
import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { failureLines, renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { ANSI_STYLE, PLAIN_STYLE } from '../../../lambdas/core/render/style.ts';
import { countChanges, summaryLine } from '../../../lambdas/core/render/summary.ts';
import { ACME, ANALYTICS, change, plan } from '../../helpers/cli-plans.ts';

const MIXED = plan(
  [
    change({ key: 'a', action: 'create', after: { eventTypeName: 'HOST_DOWN' } }),
    change({ key: 'b', action: 'update', id: 'i1', fields: [{ path: 'enabled', before: false, after: true }] }),
    change({ key: 'c', action: 'noop', id: 'i2' }),
    change({ target: ANALYTICS, key: 'd', action: 'noop' }),
    change({ target: ACME, kind: 'defaultServerType', key: 'defaultServerType', action: 'noop' }),
  ],
  {
    failures: [
      {
        target: { type: 'project', id: '5e2211c17a3e5a48f5497de7', name: 'ledger-prod' },
        phase: 'read',
        message: 'GET /groups/{groupId}/alertConfigs failed: 500 UNEXPECTED_ERROR: boom',
        code: 'OPSMAN_API_ERROR',
      },
    ],
  },
);

const GOLDEN = [
  'opsman-gitops plan 20261121T100000Z-abcdef',
  '',
  'Project payments-prod (5e2211c17a3e5a48f5497de3)',
  '  + alertConfig "a"',
  '      eventTypeName: "HOST_DOWN"',
  '  ~ alertConfig "b" (id i1)',
  '      enabled: false -> true',
  '',
  'Project analytics-dev (5e2211c17a3e5a48f5497de6): no changes (1 unchanged)',
  '',
  'Organization acme (5e2211c17a3e5a48f5497de0): no changes (1 unchanged)',
  '',
  'Failures:',
  '  x Project ledger-prod (5e2211c17a3e5a48f5497de7) [read]: GET /groups/{groupId}/alertConfigs failed: 500 UNEXPECTED_ERROR: boom (OPSMAN_API_ERROR)',
  '',
  'Plan: 1 to create, 1 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 3 unchanged.',
  '',
].join('\n');

describe('renderPlanText', () => {
  it('renders a mixed plan exactly', () => {
    expect(renderPlanText(MIXED)).toBe(GOLDEN);
  });

  it('says there is nothing to do when every change is a noop', () => {
    const text = renderPlanText(plan([change({ key: 'x' }), change({ key: 'y' })]));
    expect(text).toBe(
      [
        'opsman-gitops plan 20261121T100000Z-abcdef',
        '',
        'Project payments-prod (5e2211c17a3e5a48f5497de3): no changes (2 unchanged)',
        '',
        'No changes. Ops Manager matches the desired state.',
        'Plan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 2 unchanged.',
        '',
      ].join('\n'),
    );
  });

  it('can leave unchanged targets out', () => {
    const text = renderPlanText(MIXED, { showUnchangedTargets: false });
    expect(text).not.toContain('analytics-dev');
    expect(text).toContain('payments-prod');
  });

  it('with many unchanged targets, lists the changed one and counts the rest in one line', () => {
    const project = (i: number) => ({ type: 'project' as const, id: i.toString(16).padStart(24, '0'), name: `p${i}` });
    const changes = Array.from({ length: 200 }, (_, i) =>
      i === 57
        ? change({
            target: project(i),
            key: 'm',
            action: 'update',
            id: 'i1',
            fields: [{ path: 'x', before: 1, after: 2 }],
          })
        : change({ target: project(i), key: 'm' }),
    );
    const unmanaged = changes.map((c) => ({ target: c.target, kind: 'alertConfig' as const, id: 'u', summary: 'u' }));
    const text = renderPlanText(plan(changes, { unmanaged }));
    expect(text.split('\n')).toEqual([
      'opsman-gitops plan 20261121T100000Z-abcdef',
      '',
      'Project p57 (000000000000000000000039)',
      '  ~ alertConfig "m" (id i1)',
      '      x: 1 -> 2',
      '  (1 unmanaged object left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
      '',
      '199 targets with no changes are not listed (more than 20; --json lists them)',
      '',
      'Plan: 0 to create, 1 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 199 unchanged.',
      '',
    ]);
    // Up to the limit, each is listed.
    const few = renderPlanText(plan(changes.slice(50, 71)));
    expect(few.match(/: no changes \(1 unchanged\)/g)).toHaveLength(20);
    expect(few).not.toContain('not listed');
  });

  it('says whether it writes by the mode it is shown for, not the mode the plan was made in', () => {
    // `apply` showing the plan it is about to write (its question, a saved plan) made by a planning run.
    expect(renderPlanText(plan([], { mode: 'plan' }), { mode: 'apply' }).split('\n')[0]).toBe(
      'opsman-gitops plan 20261121T100000Z-abcdef',
    );
    expect(renderPlanText(plan([], { mode: 'apply' }), { mode: 'observe' }).split('\n')[0]).toContain(
      '(mode observe: nothing will be written)',
    );
  });

  it('shows a noop flagged as drifted under its target, not as "no changes"', () => {
    const text = renderPlanText(
      plan([
        change({ key: 'k', action: 'noop', id: 'i1', drift: { detected: true, unattributed: 'no audit events' } }),
      ]),
    );
    expect(text).toContain(
      '    alertConfig "k" (id i1)\n      changed outside opsman-gitops (who and when unknown: no audit events)',
    );
    expect(text).not.toContain(': no changes');
  });

  it('never says "No changes" when a target could not be planned (its changes are unknown)', () => {
    const failures = MIXED.failures;
    expect(renderPlanText(plan([change({ key: 'c', action: 'noop' })], { failures }))).not.toContain('No changes.');
    expect(renderPlanMarkdown(plan([change({ key: 'c', action: 'noop' })], { failures }))).not.toContain('No changes.');
  });

  it('leaving unchanged targets out, it does not count them either', () => {
    const project = (i: number) => ({ type: 'project' as const, id: i.toString(16).padStart(24, '0'), name: `p${i}` });
    const quiet = Array.from({ length: 30 }, (_, i) => change({ target: project(i), key: 'm' }));
    const text = renderPlanText(plan(quiet), { showUnchangedTargets: false });
    expect(text).not.toContain('not listed');
    expect(text).not.toContain('p0');
  });

  it('says nothing will be written in observe and plan modes', () => {
    expect(renderPlanText(plan([], { mode: 'observe' })).split('\n')[0]).toBe(
      'opsman-gitops plan 20261121T100000Z-abcdef (mode observe: nothing will be written)',
    );
    expect(renderPlanText(plan([], { mode: 'plan' })).split('\n')[0]).toContain('(mode plan: nothing will be written)');
  });

  it('colours only with the ANSI style, and the text under the colour is the same', () => {
    const plain = renderPlanText(MIXED);
    const coloured = renderPlanText(MIXED, { style: ANSI_STYLE });
    expect(plain).not.toContain('\u001b[');
    expect(coloured).toContain('\u001b[32m+ alertConfig "a"\u001b[39m');
    expect(coloured).toContain('\u001b[33m~ alertConfig "b" (id i1)\u001b[39m');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping the ANSI escapes on purpose
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain);
  });
});

describe('summary line', () => {
  const CASES = [
    {
      actions: [],
      line: 'Plan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 0 unchanged.',
    },
    {
      actions: ['create', 'create', 'create', 'update', 'enable', 'delete', 'adopt', 'blocked', 'blocked', 'drift'],
      line: 'Plan: 3 to create, 2 to update, 1 to delete, 1 to adopt, 2 blocked, 1 drifted, 0 unchanged.',
    },
    {
      actions: [
        'disable',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
        'noop',
      ],
      line: 'Plan: 0 to create, 1 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 12 unchanged.',
    },
  ] as const;
  it.each(CASES)('$line', ({ actions, line }) => {
    expect(summaryLine(countChanges(actions.map((action, i) => change({ key: `k${i}`, action }))))).toBe(line);
  });

  it('counts an update that corrects drift as both an update and a drift', () => {
    const counts = countChanges([change({ action: 'update', drift: { detected: true } })]);
    expect(counts).toEqual({
      create: 0,
      update: 1,
      delete: 0,
      release: 0,
      adopt: 0,
      blocked: 0,
      drifted: 1,
      unchanged: 0,
    });
  });
});

describe('failure lines', () => {
  const failure = (n: number, code: string, phase: 'read' | 'apply' = 'read') => ({
    target: { type: 'project' as const, id: `5e2211c17a3e5a48f54970${String(n).padStart(2, '0')}`, name: `p${n}` },
    phase,
    message: `GET /groups/{groupId}/alertConfigs: not sent (${n})`,
    code,
  });

  it('shows three targets of a common cause and counts the rest; other causes stay listed', () => {
    const failures = [
      ...Array.from({ length: 10 }, (_, i) => failure(i, 'OPSMAN_AUTH_ERROR')),
      failure(50, 'OPSMAN_API_ERROR'),
      failure(51, 'OPSMAN_AUTH_ERROR', 'apply'),
    ];
    const lines = failureLines(failures, PLAIN_STYLE);
    expect(lines).toEqual([
      '  x Project p0 (5e2211c17a3e5a48f5497000) [read]: GET /groups/{groupId}/alertConfigs: not sent (0) (OPSMAN_AUTH_ERROR)',
      '  x Project p1 (5e2211c17a3e5a48f5497001) [read]: GET /groups/{groupId}/alertConfigs: not sent (1) (OPSMAN_AUTH_ERROR)',
      '  x Project p2 (5e2211c17a3e5a48f5497002) [read]: GET /groups/{groupId}/alertConfigs: not sent (2) (OPSMAN_AUTH_ERROR)',
      '  x ... and 7 more failed with OPSMAN_AUTH_ERROR [read] (each is listed in --json and the run report)',
      '  x Project p50 (5e2211c17a3e5a48f5497050) [read]: GET /groups/{groupId}/alertConfigs: not sent (50) (OPSMAN_API_ERROR)',
      '  x Project p51 (5e2211c17a3e5a48f5497051) [apply]: GET /groups/{groupId}/alertConfigs: not sent (51) (OPSMAN_AUTH_ERROR)',
    ]);
  });

  it('never replaces a single line by a count: four of a cause are all shown', () => {
    const lines = failureLines(
      Array.from({ length: 4 }, (_, i) => failure(i, 'X')),
      PLAIN_STYLE,
    );
    expect(lines).toHaveLength(4);
    expect(lines.join('\n')).not.toContain('more targets');
  });
});
