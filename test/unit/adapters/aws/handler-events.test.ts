// Scenario: the reconcile function's event validation, table-driven: scheduler, S3 yaml, S3 non-yaml, manual, garbage.
import { describe, expect, it } from 'vitest';
import { archiveEventProblem } from '../../../../lambdas/handlers/archive.ts';
import { parseReconcileEvent } from '../../../../lambdas/handlers/events.ts';
import { nextStep } from '../../../../lambdas/handlers/next-step.ts';

const s3Event = (key: string, eventName = 'ObjectCreated:Put') => ({
  Records: [{ eventSource: 'aws:s3', eventName, s3: { bucket: { name: 'desired-bkt' }, object: { key } } }],
});
const P1 = '5e2211c17a3e5a48f5497de3';

describe('parseReconcileEvent', () => {
  it('an ignored S3 notification says where its keys would have to be (another bucket, another prefix)', () => {
    const other = {
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: { bucket: { name: 'x' }, object: { key: 'a.yaml' } },
        },
      ],
    };
    expect(parseReconcileEvent(other, { desiredPrefix: 'desired-state/', desiredBucket: 'desired-bkt' })).toEqual({
      kind: 'ignored',
      reason: 'no ObjectCreated .yaml/.yml or .opsman-gitops-snapshot.json key under s3://desired-bkt/desired-state/',
    });
  });

  it.each([
    [
      'scheduler payload from the stack',
      {
        source: 'aws.scheduler',
        'detail-type': 'Scheduled Event',
        resources: ['arn:aws:scheduler:x'],
        time: '2026-03-01T10:00:00Z',
      },
      { kind: 'schedule', scheduleArn: 'arn:aws:scheduler:x', time: '2026-03-01T10:00:00Z' },
    ],
    ['EventBridge scheduled rule', { 'detail-type': 'Scheduled Event', source: 'aws.events' }, { kind: 'schedule' }],
    [
      'S3 yaml under the prefix',
      s3Event('desired-state/projects/payments-prod.yaml'),
      { kind: 's3', bucket: 'desired-bkt', keys: ['desired-state/projects/payments-prod.yaml'] },
    ],
    [
      'S3 .yml with an encoded space',
      s3Event('desired-state/my+file%2Bx.yml'),
      { kind: 's3', bucket: 'desired-bkt', keys: ['desired-state/my file+x.yml'] },
    ],
    [
      'S3 snapshot manifest (written after the files of an upload)',
      s3Event('desired-state/.opsman-gitops-snapshot.json'),
      { kind: 's3', bucket: 'desired-bkt', keys: ['desired-state/.opsman-gitops-snapshot.json'] },
    ],
    [
      'S3 snapshot manifest name below the root',
      s3Event('desired-state/p/.opsman-gitops-snapshot.json'),
      { kind: 'ignored' },
    ],
    ['S3 snapshot manifest name outside the prefix', s3Event('.opsman-gitops-snapshot.json'), { kind: 'ignored' }],
    ['S3 non-yaml', s3Event('desired-state/local-secrets.json'), { kind: 'ignored' }],
    ['S3 yaml outside the prefix', s3Event('other/x.yaml'), { kind: 'ignored' }],
    ['S3 delete', s3Event('desired-state/a.yaml', 'ObjectRemoved:Delete'), { kind: 'ignored' }],
    [
      'S3 yaml in another bucket',
      {
        Records: [
          {
            eventSource: 'aws:s3',
            eventName: 'ObjectCreated:Put',
            s3: { bucket: { name: 'x' }, object: { key: 'desired-state/a.yaml' } },
          },
        ],
      },
      { kind: 'ignored' },
    ],
    ['manual, empty', {}, { kind: 'manual', dryRun: false }],
    [
      'manual, full',
      { mode: 'apply', projects: [P1, P1], dryRun: true },
      { kind: 'manual', mode: 'apply', projects: [P1], dryRun: true },
    ],
    [
      'manual, project ids in upper case (as --project takes them: lower-cased, one per project)',
      { projects: [P1.toUpperCase(), P1] },
      { kind: 'manual', projects: [P1], dryRun: false },
    ],
    ['manual, observe', { mode: 'observe' }, { kind: 'manual', mode: 'observe', dryRun: false }],
    [
      'manual, ignoreWindows with mode apply',
      { mode: 'apply', ignoreWindows: true, projects: [P1] },
      { kind: 'manual', mode: 'apply', projects: [P1], dryRun: false, ignoreWindows: true },
    ],
    ['manual, ignoreWindows without a mode', { ignoreWindows: true }, { kind: 'manual', ignoreWindows: true }],
  ])('accepts %s', (_name, event, expected) => {
    expect(parseReconcileEvent(event, { desiredPrefix: 'desired-state/', desiredBucket: 'desired-bkt' })).toMatchObject(
      expected,
    );
  });

  // Only the stack's payload names the schedule: a hand-written resources entry that is not a string is not one.
  it('takes the schedule ARN from resources[0] only when it is a string', () => {
    expect(
      parseReconcileEvent({ source: 'aws.scheduler', resources: [42] }, { desiredPrefix: 'desired-state/' }),
    ).toEqual({ kind: 'schedule' });
  });

  // An event can carry thousands of names: the refusal suggests a fix for five of them at most.
  it('suggests the nearest option for at most five misspelt fields', () => {
    let caught: unknown;
    try {
      parseReconcileEvent(
        { mdoe: 1, mod: 1, mde: 1, moe: 1, ode: 1, projets: [P1] },
        { desiredPrefix: 'desired-state/' },
      );
    } catch (error) {
      caught = error;
    }
    const message = (caught as Error).message;
    expect(message).toContain(
      'unexpected field(s) mde, mdoe, mod, moe, ode and 1 more (did you mean "mode" for "mde", "mode" for "mdoe", "mode" for "mod", "mode" for "moe", "mode" for "ode"?)',
    );
    expect(message).not.toContain('projets');
  });

  it.each([
    ['mode plan', { mode: 'plan', ignoreWindows: false }],
    ['dryRun', { dryRun: true, ignoreWindows: false }],
    ['a plan deployment', { ignoreWindows: false }],
  ])('accepts "ignoreWindows": false (the default) anywhere: %s', (_name, event) => {
    const trigger = parseReconcileEvent(event, { desiredPrefix: 'desired-state/', deploymentMode: 'plan' });
    expect(trigger).toMatchObject({ kind: 'manual' });
    expect(trigger).not.toHaveProperty('ignoreWindows');
  });

  it('accepts "ignoreWindows": true under an apply deployment, and before the deployment is known', () => {
    for (const deploymentMode of ['apply', undefined] as const) {
      expect(
        parseReconcileEvent(
          { mode: 'apply', ignoreWindows: true },
          { desiredPrefix: 'desired-state/', ...(deploymentMode ? { deploymentMode } : {}) },
        ),
      ).toEqual({ kind: 'manual', mode: 'apply', dryRun: false, ignoreWindows: true });
    }
  });

  // A flag that lifts nothing is refused, not ignored (as the CLI refuses `plan --ignore-windows`).
  it.each([
    [
      'ignoreWindows a string',
      { mode: 'apply', ignoreWindows: 'yes' },
      'apply',
      'ignoreWindows must be true or false; got "yes"',
    ],
    ['ignoreWindows a number', { ignoreWindows: 1 }, 'apply', 'ignoreWindows must be true or false; got number 1'],
    [
      'ignoreWindows with mode plan',
      { mode: 'plan', ignoreWindows: true },
      'apply',
      'invalid event: ignoreWindows cannot be true with mode "plan": only an apply writes, and only an apply is held by change windows (its plan shows which targets a window holds); use "mode": "apply" or leave ignoreWindows out',
    ],
    [
      'ignoreWindows with mode observe',
      { mode: 'observe', ignoreWindows: true },
      'apply',
      'ignoreWindows cannot be true with mode "observe"',
    ],
    [
      'ignoreWindows with dryRun',
      { mode: 'apply', dryRun: true, ignoreWindows: true },
      'apply',
      'invalid event: ignoreWindows cannot be true with "dryRun": true: a dry run writes nothing (its plan shows which targets a window holds); leave one of them out',
    ],
    [
      'ignoreWindows under a plan deployment',
      { ignoreWindows: true },
      'plan',
      "invalid event: ignoreWindows cannot be true here: this deployment's mode (OPSMAN_MODE) is plan, which caps every run of this function, so no run writes and only an apply writes, and only an apply is held by change windows",
    ],
    [
      'ignoreWindows with mode apply under an observe deployment',
      { mode: 'apply', ignoreWindows: true },
      'observe',
      "this deployment's mode (OPSMAN_MODE) is observe",
    ],
  ] as const)('rejects %s with a precise message', (_name, event, deploymentMode, message) => {
    let caught: unknown;
    try {
      parseReconcileEvent(event, { desiredPrefix: 'desired-state/', deploymentMode });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: 'InvalidEventError', code: 'INVALID_EVENT' });
    expect((caught as Error).message).toContain(message);
  });

  it.each([
    ['null', null, 'expected a JSON object, got null'],
    ['a string', 'apply', 'expected a JSON object, got "apply"'],
    ['an array', [], 'expected a JSON object, got an array'],
    ['a number', 42, 'expected a JSON object, got number 42'],
    [
      'unknown fields',
      { command: 'apply', force: true },
      'unexpected field(s) command, force; expected a Scheduler event, an S3 notification or {"mode", "projects", "dryRun", "ignoreWindows"}',
    ],
    [
      'misspelt manual options (the nearest option named)',
      { mdoe: 'apply', dryrun: true, project: [P1], colour: 1 },
      'unexpected field(s) colour, dryrun, mdoe, project (did you mean "dryRun" for "dryrun", "mode" for "mdoe", "projects" for "project"?); expected',
    ],
    ['bad mode', { mode: 'destroy' }, 'mode must be one of observe, plan, apply; got "destroy"'],
    ['mode not a string', { mode: 1 }, 'got number 1'],
    // A long value (a pasted token, a document) is never quoted back into the answer and the log line.
    ['mode a long string', { mode: `apply-${'x'.repeat(41)}` }, 'got a string of 47 characters'],
    ['projects not array', { projects: P1 }, 'projects must be a non-empty array'],
    ['projects empty', { projects: [] }, 'projects must be a non-empty array'],
    [
      'project id by name',
      { projects: [P1, 'payments-prod'] },
      'projects[1] must be a 24-hex-digit project id; got "payments-prod"',
    ],
    [
      'a project id with more after its 24 hex digits (a pasted line)',
      { projects: [`${P1}0`] },
      'projects[0] must be a 24-hex-digit project id; got',
    ],
    ['dryRun a string', { dryRun: 'yes' }, 'dryRun must be true or false; got "yes"'],
    ['Records empty', { Records: [] }, 'Records must be a non-empty array'],
    [
      'an S3 notification with ignoreWindows',
      { ...s3Event('desired-state/a.yaml'), ignoreWindows: true },
      'invalid event: an S3 notification cannot carry ignoreWindows (an option of a manual invocation): a run an upload starts takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows; invoke the function with {"mode", "projects", "dryRun", "ignoreWindows"} alone instead',
    ],
    [
      'an S3 notification with manual options',
      { ...s3Event('desired-state/a.yaml'), mode: 'apply', 'ignore-windows': true },
      'an S3 notification cannot carry ignore-windows, mode (options of a manual invocation)',
    ],
    ['Records from SNS', { Records: [{ eventSource: 'aws:sns' }] }, 'Records[0] is not an S3 notification'],
    ['Records without key', { Records: [{ eventSource: 'aws:s3', eventName: 'ObjectCreated:Put', s3: {} }] }, 'lacks'],
    [
      'an S3 key with a broken percent escape',
      s3Event('desired-state/%E0%A4%A.yaml'),
      'Records[0].s3.object.key is not URL-encoded UTF-8 (as S3 notifications send keys)',
    ],
    [
      'thousands of unknown fields (named up to five, then counted)',
      Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${String(i).padStart(4, '0')}`, i])),
      'unexpected field(s) f0000, f0001, f0002, f0003, f0004 and 1995 more;',
    ],
    [
      'an unknown field with a huge name (cut)',
      { ['x'.repeat(100_000)]: 1 },
      `unexpected field(s) ${'x'.repeat(40)}… (100000 characters);`,
    ],
  ])('rejects %s with a precise message', (_name, event, message) => {
    let caught: unknown;
    try {
      parseReconcileEvent(event, { desiredPrefix: 'desired-state/' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: 'InvalidEventError', code: 'INVALID_EVENT' });
    expect((caught as Error).message).toContain(message);
  });
});

describe('archiveEventProblem', () => {
  it.each([
    [{}, undefined],
    [{ source: 'aws.scheduler', 'detail-type': 'Scheduled Event', resources: ['arn'] }, undefined],
    [null, 'expected a Scheduler event or {}'],
    [[], 'expected a Scheduler event or {}'],
    [{ mode: 'apply' }, 'unexpected field(s) mode; expected a Scheduler event or {}'],
    [
      Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, i])),
      'unexpected field(s) k0, k1, k2, k3, k4 and 2 more; expected a Scheduler event or {}',
    ],
  ])('%j -> %j', (event, problem) => {
    expect(archiveEventProblem(event)).toBe(problem);
  });
});

// A scheduled run takes its mode from the deployment and covers every project: an option of a manual invocation in a
// schedule's payload would otherwise be ignored without a word, and a "mode": "observe" schedule would apply.
describe('scheduled events', () => {
  const ENVELOPE = {
    version: '0',
    id: '53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: '2026-03-01T10:00:00Z',
    region: 'eu-west-1',
    resources: ['arn:aws:events:eu-west-1:123456789012:rule/x'],
    detail: {},
  };
  const reconcileProblem = (event: unknown): string | undefined => {
    try {
      parseReconcileEvent(event, { desiredPrefix: 'desired-state/' });
      return undefined;
    } catch (error) {
      expect(error).toMatchObject({ name: 'InvalidEventError', code: 'INVALID_EVENT' });
      return (error as Error).message;
    }
  };

  it('accept every field of the EventBridge envelope', () => {
    expect(parseReconcileEvent(ENVELOPE, { desiredPrefix: 'desired-state/' })).toEqual({
      kind: 'schedule',
      scheduleArn: 'arn:aws:events:eu-west-1:123456789012:rule/x',
      time: '2026-03-01T10:00:00Z',
    });
    expect(archiveEventProblem(ENVELOPE)).toBeUndefined();
    expect(archiveEventProblem({ ...ENVELOPE, source: 'aws.scheduler', detail: { note: 'nightly' } })).toBeUndefined();
  });

  it.each([
    [
      { source: 'aws.scheduler', mode: 'apply' },
      "invalid event: a scheduled event cannot carry mode (an option of a manual invocation): a scheduled run takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows; remove it from the schedule's payload",
    ],
    [
      { ...ENVELOPE, projects: [P1], dryRun: true },
      "a scheduled event cannot carry dryRun, projects (options of a manual invocation): a scheduled run takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows; remove them from the schedule's payload",
    ],
    [{ ...ENVELOPE, detail: { mode: 'observe' } }, 'a scheduled event cannot carry detail.mode (an option'],
    [
      { ...ENVELOPE, detail: { Command: 'apply', 'dry-run': true } },
      'cannot carry detail.Command, detail.dry-run (options',
    ],
    [{ ...ENVELOPE, Mode: 'plan' }, 'a scheduled event cannot carry Mode (an option'],
    [
      { source: 'aws.scheduler', ignoreWindows: true },
      "invalid event: a scheduled event cannot carry ignoreWindows (an option of a manual invocation): a scheduled run takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows; remove it from the schedule's payload",
    ],
    [
      { ...ENVELOPE, detail: { ignoreWindows: true } },
      'a scheduled event cannot carry detail.ignoreWindows (an option',
    ],
    [
      { ...ENVELOPE, force: true },
      'invalid event: a scheduled event carries only the EventBridge envelope (version, id, detail-type, source, account, time, region, resources, detail); unexpected field(s) force',
    ],
    [{ ...ENVELOPE, detail: 'apply' }, 'invalid event: detail of a scheduled event must be an object; got "apply"'],
  ])('refuse %j', (event, message) => {
    expect(reconcileProblem(event)).toContain(message);
  });

  it.each([
    [
      { source: 'aws.scheduler', mode: 'apply' },
      "a scheduled event cannot carry mode (an option of a manual invocation): a scheduled archive takes no options; remove it from the schedule's payload",
    ],
    [{ ...ENVELOPE, detail: { projects: [P1] } }, 'a scheduled event cannot carry detail.projects'],
    [{ ...ENVELOPE, extra: 1 }, 'unexpected field(s) extra'],
  ])('the archive function refuses %j too', (event, message) => {
    expect(archiveEventProblem(event)).toContain(message);
  });
});

describe("a refused event's next step", () => {
  it('lists every option a manual invocation takes, ignoreWindows too', () => {
    expect(nextStep('INVALID_EVENT')).toContain('{"mode","projects","dryRun","ignoreWindows"}');
  });
});
