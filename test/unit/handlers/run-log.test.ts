// Scenario: the on-call lines of a finished run: the next step comes from the failure's code and HTTP status (never
// from its text), and a run where Ops Manager is down logs a handful of "target failed" lines, not one per target,
// without hiding a different failure behind them.
import type { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { failedWith } from '../../../lambdas/core/apply-target.ts';
import { STATE_WAS_CORRUPT } from '../../../lambdas/core/errors.ts';
import { LEASE_RELEASE_FAILED } from '../../../lambdas/core/lease.ts';
import type { Change, RunReport, TargetFailure } from '../../../lambdas/core/model.ts';
import { failedWriteFailure } from '../../../lambdas/core/report.ts';
import { DEFAULT_NEXT_STEP, nextStep } from '../../../lambdas/handlers/next-step.ts';
import {
  CHANGE_BLOCKED_CODE,
  logRunFindings,
  MAX_BLOCKED_LINES,
  MAX_FAILURE_LINES,
  MAX_FAILURE_LINES_PER_CAUSE,
  MAX_FIGHT_LINES,
  MAX_WARNING_LINES,
  UPDATE_FIGHT_CODE,
} from '../../../lambdas/handlers/run-log.ts';
import { OpsManagerApiError, OpsManagerAuthError } from '../../../lambdas/opsman/errors.ts';
import { recordingLogger } from '../../helpers/recording-logger.ts';

function report(failures: TargetFailure[]): RunReport {
  // Only what logRunFindings reads: the failures, the plan's changes and the command.
  return { failures, plan: { changes: [] }, command: 'apply' } as unknown as RunReport;
}

const project = (n: number) => ({ type: 'project' as const, id: `p${n}`, name: `project-${n}` });
const CONTEXT = { method: 'PUT', pathTemplate: '/groups/{groupId}/alertConfigs/{alertConfigId}' };

describe('target failed lines', () => {
  it.each([
    {
      name: 'a 404 whose message quotes another status first (an alert key) is a project gone',
      failure: {
        code: 'OPSMAN_API_ERROR',
        httpStatus: 404,
        message: 'alertConfig disk failed: 500 GB: update failed: PUT /groups/{groupId} failed: 404 GROUP_NOT_FOUND',
      },
      step: /gone from Ops Manager/,
    },
    {
      name: 'a refused key (401) whose message holds "403" (an alert key) is a refused key, not a missing role',
      failure: { code: 'OPSMAN_AUTH_ERROR', httpStatus: 401, message: 'alertConfig 403-errors: update failed' },
      step: /credentials secret/,
    },
    {
      name: 'a 403 with a value-free message is a missing role',
      failure: { code: 'OPSMAN_AUTH_ERROR', httpStatus: 403, message: 'refused' },
      step: /lacks the role/,
    },
    {
      name: 'a 409 with a value-free message is values refused',
      failure: { code: 'OPSMAN_API_ERROR', httpStatus: 409, message: 'refused' },
      step: /rejected the values/,
    },
  ])('$name', ({ failure, step }) => {
    const { logger, calls } = recordingLogger();
    logRunFindings(logger, report([{ target: project(1), phase: 'apply', ...failure }]));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.fields).toMatchObject({ code: failure.code, httpStatus: failure.httpStatus });
    expect(calls[0]?.fields.nextStep).toMatch(step);
  });

  it('a failed write carries the HTTP status of its error answer to its result and its failure', () => {
    const change = { target: project(1), kind: 'alertConfig', key: 'k', action: 'update' } as unknown as Change;
    const api = failedWith(new OpsManagerApiError(404, 'GROUP_NOT_FOUND', 'no group', CONTEXT));
    expect(api).toMatchObject({ code: 'OPSMAN_API_ERROR', httpStatus: 404 });
    const auth = failedWith(new OpsManagerAuthError(403, 'USER_UNAUTHORIZED', 'refused', CONTEXT));
    expect(auth).toMatchObject({ code: 'OPSMAN_AUTH_ERROR', httpStatus: 403 });
    expect(failedWith(new Error('boom'))).toEqual({ message: 'boom' });
    const failure = failedWriteFailure({ change, status: 'failed', durationMs: 1, ...api });
    expect(failure).toMatchObject({ code: 'OPSMAN_API_ERROR', httpStatus: 404 });
    expect(nextStep(failure.code, failure.httpStatus)).toMatch(/gone from Ops Manager/);
  });

  it("a proxy's 404 page (not Ops Manager's error JSON) carries no status: its next step is not 'the project is gone'", () => {
    const proxy = failedWith(
      new OpsManagerApiError(404, 'HTTP_404', 'not Ops Manager', CONTEXT, { fromOpsManager: false }),
    );
    expect(proxy).toEqual({ message: expect.any(String), code: 'OPSMAN_API_ERROR' });
    expect(nextStep(proxy.code, undefined)).not.toMatch(/gone from Ops Manager/);
  });

  it('Ops Manager down for 1,000 targets: a few lines per cause, the rest counted, a different failure still logged', () => {
    const down = (n: number): TargetFailure => ({
      target: project(n),
      phase: 'read',
      message: 'GET /groups/{groupId}/alertConfigs: no answer after 3 attempts',
      code: 'OPSMAN_TRANSPORT_ERROR',
    });
    const failures = [
      ...Array.from({ length: 1000 }, (_, n) => down(n)),
      { target: project(1000), phase: 'read' as const, message: 'gone', code: 'OPSMAN_API_ERROR', httpStatus: 404 },
      down(1001),
    ];
    const { logger, calls } = recordingLogger();
    logRunFindings(logger, report(failures));
    const lines = calls.filter((c) => c.message === 'target failed');
    expect(lines).toHaveLength(MAX_FAILURE_LINES_PER_CAUSE + 1);
    const transport = lines.filter((l) => l.fields.code === 'OPSMAN_TRANSPORT_ERROR');
    expect(transport.map((l) => (l.fields.target as { id: string }).id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(transport.at(-1)?.fields.more).toBe(1001 - MAX_FAILURE_LINES_PER_CAUSE);
    expect(transport.slice(0, -1).every((l) => l.fields.more === undefined)).toBe(true);
    expect(lines.find((l) => l.fields.code === 'OPSMAN_API_ERROR')?.fields).toMatchObject({
      target: { id: 'p1000' },
      httpStatus: 404,
    });
  });

  it('more causes than lines: every cause gets its first line before any gets a second, the rest counted', () => {
    const failures: TargetFailure[] = Array.from({ length: MAX_FAILURE_LINES + 10 }, (_, n) => ({
      target: project(n),
      phase: 'apply',
      message: 'refused',
      code: `CODE_${n}`,
    }));
    failures.unshift({ ...(failures[0] as TargetFailure), target: project(999) });
    const { logger, calls } = recordingLogger();
    logRunFindings(logger, report(failures));
    expect(calls).toHaveLength(MAX_FAILURE_LINES);
    // CODE_0 has two failures; its second waits behind the first lines of the other causes, and is counted.
    expect(calls.filter((c) => c.fields.code === 'CODE_0')).toHaveLength(1);
    expect(calls.find((c) => c.fields.code === 'CODE_0')?.fields.more).toBe(1);
    expect(calls.at(-1)?.fields.unlisted).toBe(10);
  });
});

describe('update fight detected lines', () => {
  const fought = (n: number): Change =>
    ({
      target: project(1),
      kind: 'alertConfig',
      key: `k${n}`,
      action: 'enable',
      fields: [{ path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed on live' }],
      before: { webhookUrl: 'https://hush.example.invalid/value-1' },
      reason: 'disabled live',
      drift: {
        detected: true,
        attribution: [],
        fight: {
          runs: 4,
          since: '2026-11-01T10:00:00.000Z',
          actors: [{ actor: 'jdoekey1', actorType: 'apiKey' }],
          fields: ['enabled'],
        },
      },
    }) as Change;

  it('one coded line per fought-over object, after its drift line, with the runs, actors, fields and next step, and no value', () => {
    const { logger, calls } = recordingLogger();
    const plain = { ...fought(2), drift: { detected: true as const } };
    logRunFindings(logger, {
      failures: [],
      plan: { changes: [fought(1), plain] },
      command: 'apply',
    } as unknown as RunReport);
    expect(calls.map((c) => c.message)).toEqual(['drift detected', 'drift detected', 'update fight detected']);
    const line = calls.at(-1);
    expect(line?.level).toBe('warn');
    expect(line?.fields).toEqual({
      code: UPDATE_FIGHT_CODE,
      target: { type: 'project', id: 'p1', name: 'project-1' },
      kind: 'alertConfig',
      key: 'k1',
      runs: 4,
      since: '2026-11-01T10:00:00.000Z',
      actors: [{ actor: 'jdoekey1', actorType: 'apiKey' }],
      fields: ['enabled'],
      nextStep: nextStep(UPDATE_FIGHT_CODE),
    });
    expect(nextStep(UPDATE_FIGHT_CODE)).toMatch(
      /give it one owner, by leaving it to the other writer \(an alert config: its key in spec\.release/,
    );
    expect(JSON.stringify(calls)).not.toMatch(/hush/);
  });

  it('at most MAX_FIGHT_LINES lines; the last counts the rest', () => {
    const { logger, calls } = recordingLogger();
    const changes = Array.from({ length: MAX_FIGHT_LINES + 3 }, (_, i) => fought(i));
    logRunFindings(logger, { failures: [], plan: { changes }, command: 'apply' } as unknown as RunReport);
    const lines = calls.filter((c) => c.message === 'update fight detected');
    expect(lines).toHaveLength(MAX_FIGHT_LINES);
    expect(lines.at(-1)?.fields.more).toBe(3);
  });

  it("a drift line lists the drifted fields, not the unmodelled members the update's PUT leaves out", () => {
    const { logger, calls } = recordingLogger();
    const change = {
      ...fought(1),
      action: 'update',
      fields: [
        { path: 'metricThreshold.threshold', before: 1, after: 2 },
        { path: 'severityOverride', unmodelled: true },
      ],
      drift: { detected: true, attribution: [] },
    } as unknown as Change;
    logRunFindings(logger, { failures: [], plan: { changes: [change] }, command: 'apply' } as unknown as RunReport);
    expect(calls.find((c) => c.message === 'drift detected')?.fields.fields).toEqual(['metricThreshold.threshold']);
  });
});

describe('alert config released lines', () => {
  it('one INFO line per release: released when applied, planned when not; no line without releases', () => {
    const calls: { message: string; fields: Record<string, unknown> }[] = [];
    const logger = {
      info: (message: string, fields: Record<string, unknown>) => calls.push({ message, fields }),
      warn: () => {},
      error: () => {},
    } as unknown as Logger;
    const release = (key: string, id?: string) =>
      ({
        target: project(1),
        kind: 'alertConfig',
        key,
        action: 'release',
        fields: [],
        reason: 'released (spec.release)',
        ...(id === undefined ? {} : { id }),
      }) as Change;
    const done = release('disk', '6c0100000000000000000001');
    const waiting = release('late');
    const runReport = {
      failures: [],
      plan: { changes: [done, waiting] },
      results: [
        { change: done, status: 'applied', durationMs: 0 },
        { change: waiting, status: 'skipped', durationMs: 0 },
      ],
      command: 'apply',
    } as unknown as RunReport;
    logRunFindings(logger, runReport);
    expect(calls).toEqual([
      {
        message: 'alert config released',
        fields: {
          target: { type: 'project', id: 'p1', name: 'project-1' },
          kind: 'alertConfig',
          key: 'disk',
          id: '6c0100000000000000000001',
          reason: 'released (spec.release)',
        },
      },
      {
        message: 'alert config release planned',
        fields: {
          target: { type: 'project', id: 'p1', name: 'project-1' },
          kind: 'alertConfig',
          key: 'late',
          reason: 'released (spec.release)',
        },
      },
    ]);
    calls.length = 0;
    logRunFindings(logger, report([]));
    expect(calls).toEqual([]);
  });
});

describe('change blocked lines', () => {
  const blocked = (n: number): Change =>
    ({
      target: project(n % 3),
      kind: 'alertConfig',
      key: `k${n}`,
      action: 'blocked',
      fields: [],
      after: { notifications: [{ typeName: 'WEBHOOK', webhookSecret: 'hush-value-1' }] },
      reason: `alert config "k${n}": secret reference opsman/notify#hook (notifications[WEBHOOK].webhookSecret) could not be resolved: secret 'opsman/notify': no such secret`,
    }) as Change;

  it('one coded WARN line per blocked change, with its target, key, reason and next step, and no value of its body', () => {
    const { logger, calls } = recordingLogger();
    logRunFindings(logger, { failures: [], plan: { changes: [blocked(1)] }, command: 'apply' } as unknown as RunReport);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ level: 'warn', message: 'change blocked' });
    expect(calls[0]?.fields).toEqual({
      code: CHANGE_BLOCKED_CODE,
      target: project(1),
      kind: 'alertConfig',
      key: 'k1',
      reason: blocked(1).reason,
      nextStep: nextStep(CHANGE_BLOCKED_CODE),
    });
    expect(nextStep(CHANGE_BLOCKED_CODE)).not.toBe(DEFAULT_NEXT_STEP);
    expect(JSON.stringify(calls)).not.toContain('hush-value-1');
  });

  it('at most MAX_BLOCKED_LINES lines; the last counts the rest', () => {
    const { logger, calls } = recordingLogger();
    const changes = Array.from({ length: MAX_BLOCKED_LINES + 4 }, (_, i) => blocked(i));
    logRunFindings(logger, { failures: [], plan: { changes }, command: 'apply' } as unknown as RunReport);
    const lines = calls.filter((c) => c.message === 'change blocked');
    expect(lines).toHaveLength(MAX_BLOCKED_LINES);
    expect(lines.at(-1)?.fields.more).toBe(4);
    expect(lines.slice(0, -1).every((l) => l.fields.more === undefined)).toBe(true);
  });
});

describe('next steps of the codes a Lambda run logs', () => {
  // Codes a target failure or a failed change carries in a Lambda run that had only the runbook's fallback.
  it.each([
    ['SECRET_UNRESOLVED', /secretRef/],
    ['OPSMAN_INVALID_RESPONSE', /OPSMAN_BASE_URL/],
    ['OPSMAN_RESPONSE_TOO_LARGE', /size limit/],
    ['OPSMAN_ABORTED', /time limit/],
  ])('%s has its own next step', (code, step) => {
    expect(nextStep(code)).not.toBe(DEFAULT_NEXT_STEP);
    expect(nextStep(code)).toMatch(step);
  });

  it("a 403 names the API key's access list beside the role: Ops Manager answers a caller outside it with 403 too", () => {
    expect(nextStep('OPSMAN_AUTH_ERROR', 403)).toMatch(/lacks the role/);
    expect(nextStep('OPSMAN_AUTH_ERROR', 403)).toMatch(/egress \(NAT\) IP to the API key's access list/);
  });

  it('a credentials secret not found is not only a secretRef to fix in git', () => {
    expect(nextStep('SECRET_NOT_FOUND')).toMatch(/OPSMAN_CREDENTIALS_SECRET_ID/);
  });
});

describe('run warnings line', () => {
  const withWarnings = (warnings: string[]) =>
    ({ failures: [], plan: { changes: [] }, command: 'apply', warnings }) as unknown as RunReport;

  it('one WARN line quotes the warnings no line of their own says; none when there are none', () => {
    const attribution =
      'DRIFT NOT ATTRIBUTED: the events of project payments-prod could not be read (OPSMAN_UNAVAILABLE)';
    const marker = 'PENDING CREATE MARKER WITHOUT DIGEST: key "disk" of payments-prod (run 20261127T000000Z-1)';
    const { logger, calls } = recordingLogger();
    logRunFindings(
      logger,
      withWarnings([
        `${STATE_WAS_CORRUPT}: the state was unreadable`,
        attribution,
        `${LEASE_RELEASE_FAILED}: S3 refused`,
        'CHANGE WINDOW IGNORED: payments-prod written despite freeze',
        marker,
      ]),
    );
    const lines = calls.filter((c) => c.message === 'run warnings');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('warn');
    expect(lines[0]?.fields).toEqual({ count: 2, warnings: [attribution, marker] });

    const quiet = recordingLogger();
    logRunFindings(quiet.logger, withWarnings([`${STATE_WAS_CORRUPT}: x`]));
    expect(quiet.calls.filter((c) => c.message === 'run warnings')).toEqual([]);
  });

  it('quotes at most MAX_WARNING_LINES warnings and counts the rest', () => {
    const { logger, calls } = recordingLogger();
    const many = Array.from({ length: MAX_WARNING_LINES + 7 }, (_, i) => `warning ${i}`);
    logRunFindings(logger, withWarnings(many));
    const line = calls.find((c) => c.message === 'run warnings');
    expect(line?.fields).toEqual({ count: many.length, warnings: many.slice(0, MAX_WARNING_LINES), more: 7 });
  });
});
