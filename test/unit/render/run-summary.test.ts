// Scenario: an apply's summary lists what was applied, what failed, the counts, and where the report went (golden);
// an interrupted apply says it was interrupted, what was applied and what was not started, never "complete".
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_MESSAGE } from '../../../lambdas/core/interrupt.ts';
import type { ChangeResult } from '../../../lambdas/core/model.ts';
import { renderRunSummary } from '../../../lambdas/core/render/run-summary.ts';
import { collectFailures, STATE_TARGET, summariseRun } from '../../../lambdas/core/report.ts';
import { ANALYTICS, change, PAYMENTS, plan, report } from '../../helpers/cli-plans.ts';

describe('renderRunSummary', () => {
  it('renders results, failures, counts and locations exactly', () => {
    const p = plan(
      [
        change({ key: 'a', action: 'create' }),
        change({ key: 'b', action: 'update', id: 'i2' }),
        change({ key: 'c', action: 'noop', id: 'i3' }),
        change({ key: 'd', action: 'delete', id: 'i4' }),
        change({ key: 'e', action: 'enable', id: 'i5' }),
      ],
      {
        failures: [{ target: ANALYTICS, phase: 'read', message: 'connection refused', code: 'OPSMAN_TRANSPORT_ERROR' }],
      },
    );
    const [a, b, c, d, e] = p.changes as [never, never, never, never, never];
    const r = report(p, [
      { change: a, status: 'applied', id: 'new1', durationMs: 5 },
      { change: b, status: 'failed', message: '400 INVALID_ATTRIBUTE', code: 'OPSMAN_API_ERROR', durationMs: 5 },
      { change: c, status: 'applied', durationMs: 0 },
      { change: d, status: 'skipped', message: 'a create of this project failed', durationMs: 0 },
      { change: e, status: 'not-converging', message: 'enabled still differs', durationMs: 5 },
    ]);
    expect(
      renderRunSummary(r, { reportLocation: '/s/archive/reports/2026-11-21/x.json', archived: ['/s/m.json'] }),
    ).toBe(
      [
        '  + payments-prod alertConfig "a" (id new1): create applied',
        // The failed write's code, as the Failures: lines and the Lambda's `target failed` line give it.
        '  ~ Project payments-prod (5e2211c17a3e5a48f5497de3) alertConfig "b" (id i2): update FAILED: 400 INVALID_ATTRIBUTE (OPSMAN_API_ERROR)',
        '  - payments-prod alertConfig "d" (id i4): skipped: a create of this project failed',
        '  ~ payments-prod alertConfig "e" (id i5): NOT CONVERGING: enabled still differs',
        '',
        'Failures:',
        '  x Project analytics-dev (5e2211c17a3e5a48f5497de6) [read]: connection refused (OPSMAN_TRANSPORT_ERROR)',
        '',
        'Apply finished with errors: 2 applied, 1 failed, 1 skipped, 1 not converging, 0 blocked, 1 target failed in 1.5 s; 12 API calls.',
        'Report: /s/archive/reports/2026-11-21/x.json',
        'Archived: /s/m.json',
        '',
      ].join('\n'),
    );
  });

  it('counts failed targets, not failure entries: two failed writes of one project are one target failed', () => {
    const p = plan([change({ key: 'a', action: 'create' }), change({ key: 'b', action: 'create' })]);
    const [a, b] = p.changes as [never, never];
    const results: ChangeResult[] = [
      { change: a, status: 'failed', message: 'secret not found', durationMs: 0 },
      { change: b, status: 'failed', message: 'secret not found', durationMs: 0 },
    ];
    // The failures and the summary as the run builds them (core/run.ts): one failure entry per failed write.
    const failures = collectFailures(p, [], results);
    expect(failures.map((f) => f.target.id)).toEqual([PAYMENTS.id, PAYMENTS.id]);
    const r = report(p, results, { failures, summary: summariseRun(p, results, failures) });
    expect(r.summary.targetsFailed).toBe(1);
    expect(renderRunSummary(r)).toContain('2 failed, 0 skipped, 0 not converging, 0 blocked, 1 target failed in');
  });

  it('lists each failed write once, on its result line with its project id; other failures stay under Failures', () => {
    const p = plan([change({ key: 'a', action: 'create' }), change({ key: 'b', action: 'update', id: 'i2' })]);
    const [a, b] = p.changes as [never, never];
    const results: ChangeResult[] = [
      { change: a, status: 'failed', message: 'secret not found', durationMs: 0 },
      { change: b, status: 'failed', message: '500 UNEXPECTED_ERROR', durationMs: 0 },
    ];
    const state = { target: STATE_TARGET, phase: 'apply' as const };
    const failures = collectFailures(p, [{ ...state, message: 'cannot save the state: disk full' }], results);
    const text = renderRunSummary(report(p, results, { failures, summary: summariseRun(p, results, failures) }));
    expect(text.split('\n').slice(0, 6)).toEqual([
      // The project's id, as the Failures: line that listed a failed write had it, and the config's when it has one.
      '  + Project payments-prod (5e2211c17a3e5a48f5497de3) alertConfig "a": create FAILED: secret not found',
      '  ~ Project payments-prod (5e2211c17a3e5a48f5497de3) alertConfig "b" (id i2): update FAILED: 500 UNEXPECTED_ERROR',
      '',
      'Failures:',
      // The state store, not Ops Manager: the writes reached Ops Manager, the state did not reach its store.
      '  x state [apply]: cannot save the state: disk full',
      '',
    ]);
    expect(text.match(/secret not found/g)).toHaveLength(1);
    expect(text.match(/500 UNEXPECTED_ERROR/g)).toHaveLength(1);
  });

  it('is one line when nothing needed doing', () => {
    const p = plan([change({ key: 'c' })]);
    const r = report(p, [{ change: p.changes[0] as never, status: 'applied', durationMs: 0 }], {
      apiCalls: { total: 1, byEndpoint: {} },
    });
    expect(renderRunSummary(r, { label: 'Archive' })).toBe(
      'Archive complete: 1 applied, 0 failed, 0 skipped, 0 not converging, 0 blocked, 0 targets failed in 1.5 s; 1 API call.\n',
    );
  });

  it('an interrupted apply: what was applied, what was not started, and how to finish', () => {
    const p = plan([
      change({ key: 'a', action: 'create' }),
      change({ key: 'b', action: 'update', id: 'i2' }),
      change({ key: 'c', action: 'delete', id: 'i3' }),
      change({ key: 'defaultServerType', kind: 'defaultServerType', action: 'update' }),
    ]);
    const [a, b, c, d] = p.changes as [never, never, never, never];
    const warning =
      'INTERRUPTED (Ctrl-C (SIGINT)): 2 planned write(s) not started; the writes in flight finished, the state was saved and the lock released';
    const r = report(
      p,
      [
        { change: a, status: 'applied', id: 'new1', durationMs: 5 },
        { change: b, status: 'skipped', message: 'a create of this project failed', durationMs: 0 },
        { change: c, status: 'skipped', message: INTERRUPTED_MESSAGE, durationMs: 0 },
        { change: d, status: 'skipped', message: INTERRUPTED_MESSAGE, durationMs: 0 },
      ],
      { interrupted: { reason: 'Ctrl-C (SIGINT)', notStarted: 2 }, warnings: [warning] },
    );
    const text = renderRunSummary(r, { reportLocation: '/s/r.json' });
    expect(text).toBe(
      [
        `Warning: ${warning}`,
        '',
        '  + payments-prod alertConfig "a" (id new1): create applied',
        '  ~ payments-prod alertConfig "b" (id i2): skipped: a create of this project failed',
        '',
        'Not started (interrupted before these writes began; the next apply plans them again):',
        '  - payments-prod alertConfig "c"',
        '  ~ payments-prod defaultServerType',
        '',
        'Apply interrupted by Ctrl-C (SIGINT): 1 applied, 2 not started, 0 failed, 1 skipped, 0 not converging, 0 blocked, 0 targets failed in 1.5 s; 12 API calls.',
        'The writes in flight finished, the state was saved and the lock released: run apply again to finish.',
        'Report: /s/r.json',
        '',
      ].join('\n'),
    );
    expect(text).not.toContain('complete');
  });
});
