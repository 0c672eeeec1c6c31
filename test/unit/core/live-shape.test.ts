// Scenario: a live alert-config answer whose shape planning cannot use (a null notification, matchers that are not a list, no id) fails that project's read with a message naming the config and the field; any answer the check lets through normalises and diffs without throwing; the other projects are planned and written as usual.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffAlert } from '../../../lambdas/core/diff.ts';
import { alertConfigProblem, auditLogRotationProblem } from '../../../lambdas/core/live-shape.ts';
import { liveForm, liveText, liveView, normaliseDesired } from '../../../lambdas/core/normalise.ts';
import { projectLiveDigest } from '../../../lambdas/core/read-live.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { P1, P2, scenario } from './scenario-fixture.ts';

/** Any JSON value, a few levels deep. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 5 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('typeName', 'delayMin', 'intervalMin', 'roles', 'fieldName', 'value', 'toString', 'valueOf', 'x'),
      tie('value'),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

/** Mostly `plausible`, sometimes any JSON value. */
const mostly = <T>(plausible: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: plausible, weight: 6 }, { arbitrary: json as fc.Arbitrary<unknown>, weight: 1 });

/** Alert-config-like answers: the fields planning reads, each usually plausible and sometimes any JSON value. */
const answer = fc.record(
  {
    id: mostly(fc.string({ minLength: 1, maxLength: 4 })),
    eventTypeName: mostly(fc.constantFrom('HOST_DOWN', 'OUTSIDE_METRIC_THRESHOLD')),
    enabled: json,
    matchers: mostly(
      fc.array(mostly(fc.record({ fieldName: json, operator: json, value: mostly(fc.string({ maxLength: 3 })) })), {
        maxLength: 3,
      }),
    ),
    notifications: mostly(
      fc.array(
        mostly(
          fc.record({
            typeName: mostly(fc.constantFrom('EMAIL', 'SLACK', 'GROUP', 'WEBHOOK', 'TEAM')),
            roles: mostly(fc.array(fc.constantFrom('GROUP_OWNER', 'GROUP_READ_ONLY'))),
            delayMin: json,
            intervalMin: json,
            emailAddress: json,
            emailEnabled: json,
            webhookUrl: json,
            webhookSecret: json,
          }),
        ),
        { maxLength: 3 },
      ),
    ),
    metricThreshold: json,
    threshold: json,
  },
  { requiredKeys: [] },
);

describe('alertConfigProblem', () => {
  it('names what is wrong', () => {
    const ok = { id: 'a1', eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP' }], matchers: [] };
    expect(alertConfigProblem(ok)).toBeUndefined();
    expect(alertConfigProblem({ ...ok, matchers: undefined, notifications: null })).toBeUndefined();
    expect(alertConfigProblem(null)).toBe('is not an object');
    expect(alertConfigProblem([ok])).toBe('is not an object');
    expect(alertConfigProblem({ ...ok, id: '' })).toBe('has no id');
    expect(alertConfigProblem({ ...ok, eventTypeName: 7 })).toBe('has no eventTypeName');
    expect(alertConfigProblem({ ...ok, notifications: { typeName: 'GROUP' } })).toBe(
      'has notifications that is not a list',
    );
    expect(alertConfigProblem({ ...ok, notifications: [{ typeName: 'GROUP' }, null] })).toBe(
      'has notifications[1] that is not an object',
    );
    expect(alertConfigProblem({ ...ok, matchers: ['HOSTNAME'] })).toBe('has matchers[0] that is not an object');
  });

  it('every answer it lets through normalises, digests and diffs without throwing (property)', () => {
    const desired = normaliseDesired({
      eventTypeName: 'HOST_DOWN',
      enabled: true,
      matchers: [{ fieldName: 'HOSTNAME', operator: 'EQUALS', value: 'db1' }],
      notifications: [
        { typeName: 'EMAIL', emailAddress: 'a@example.com', delayMin: 0 },
        { typeName: 'GROUP', roles: ['GROUP_OWNER'] },
      ],
    } as never);
    let usable = 0;
    fc.assert(
      fc.property(answer, (raw) => {
        if (alertConfigProblem(raw) !== undefined) return;
        usable++;
        const config = raw as unknown as AlertConfig;
        const form = liveForm(config);
        expect(liveText(config)).toBe(form.text);
        expect(typeof projectLiveDigest({ alertConfigs: [config] })).toBe('string');
        expect(Array.isArray(diffAlert(desired, liveView(config).normal))).toBe(true);
      }),
      { numRuns: 5000 },
    );
    // The generator must reach the interesting side often enough for the property to say something.
    expect(usable).toBeGreaterThan(500);
  });
});

describe('auditLogRotationProblem', () => {
  it('accepts numbers, numeric texts, null and absent fields; names anything else', () => {
    expect(auditLogRotationProblem({ sizeThresholdMB: 1000, timeThresholdHrs: '24', numTotal: null })).toBeUndefined();
    expect(auditLogRotationProblem({})).toBeUndefined();
    expect(auditLogRotationProblem(null)).toBe('is not an object');
    expect(auditLogRotationProblem([])).toBe('is not an object');
    expect(auditLogRotationProblem({ sizeThresholdMB: 'big' })).toBe('has sizeThresholdMB that is not a number');
    expect(auditLogRotationProblem({ numTotal: ' ' })).toBe('has numTotal that is not a number');
    expect(auditLogRotationProblem({ percentOfDiskspace: { toString: null } })).toBe(
      'has percentOfDiskspace that is not a number',
    );
  });
});

describe('a malformed answer in a run', () => {
  it("fails that project's read with the config and field named; the other project is written", async () => {
    const h = scenario();
    await h.run('apply');
    const writesBefore = h.world.writes(P1).length;
    const render = h.world.render.bind(h.world);
    h.world.render = (a) => {
      const out = render(a);
      return a.groupId === P1 ? ({ ...out, notifications: [...out.notifications, null] } as AlertConfig) : out;
    };
    // The second project drifts, so that its write shows the run went on.
    const p2 = [...(h.world.groups.get(P2)?.alerts.values() ?? [])][0];
    if (p2 === undefined) throw new Error('fixture: P2 has an alert config');
    p2.enabled = false;
    const stateBefore = JSON.stringify(h.state.state?.projects[P1]);
    const report = await h.run('apply');
    expect(report.failures).toEqual([
      expect.objectContaining({
        target: expect.objectContaining({ id: P1 }),
        phase: 'read',
        code: 'LIVE_MALFORMED',
        message: expect.stringMatching(
          new RegExp(
            `^GET /groups/${P1}/alertConfigs answered a malformed alert config \\S+: it has notifications\\[\\d\\] that is not an object`,
          ),
        ),
      }),
    ]);
    expect(h.world.writes(P1).length).toBe(writesBefore);
    expect(JSON.stringify(h.state.state?.projects[P1])).toBe(stateBefore);
    expect(
      report.results.filter((r) => r.change.target.id === P2).map((r) => `${r.change.action}:${r.status}`),
    ).toEqual(['enable:applied']);
  });
});
