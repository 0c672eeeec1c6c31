// Scenario: a plan passed in-process (not through the sealed CLI file) with a malformed drift attribution, update
// fight, notes, warnings or failures is refused by path before any write, instead of a TypeError once writes are done.
import { describe, expect, it } from 'vitest';
import { SavedPlanInvalidError } from '../../../lambdas/core/errors.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { checkSavedPlan } from '../../../lambdas/core/saved-plan.ts';
import type { ReconcileHarness } from '../../helpers/reconcile-world.ts';
import { P1, p1Alerts, scenario, setP1 } from './scenario-fixture.ts';

/** A saved plan (JSON round trip) updating project 1's `no-primary`, made after a first apply of `h`. */
async function planUpdating(h: ReconcileHarness): Promise<Plan> {
  await h.run('apply');
  const [noPrimary, disk] = p1Alerts() as [Record<string, unknown>, Record<string, unknown>];
  setP1(h, { alertConfigs: [{ ...noPrimary, eventTypeName: 'NO_PRIMARY', enabled: false }, disk] });
  const plan = JSON.parse(JSON.stringify((await h.run('plan')).plan)) as Plan;
  expect(plan.changes.filter((c) => c.action !== 'noop').map((c) => `${c.key}:${c.action}`)).toEqual([
    'no-primary:disable',
  ]);
  return plan;
}

/** `plan` with its one write's drift set to `drift` (as a hand or another program may have written it). */
function withDrift(plan: Plan, drift: unknown): Plan {
  const changes = plan.changes.map((c) => (c.action === 'noop' ? c : ({ ...c, drift } as typeof c)));
  return { ...plan, changes };
}

/** `plan` with `members` set on its one write (as a hand or another program may have written them). */
function withChange(plan: Plan, members: Record<string, unknown>): Plan {
  const changes = plan.changes.map((c) => (c.action === 'noop' ? c : ({ ...c, ...members } as typeof c)));
  return { ...plan, changes };
}

const ATTRIBUTION = {
  eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
  created: '2026-11-27T04:00:00Z',
  actor: 'jane',
  actorType: 'user',
  eventId: '6a1f000000000000000000aa',
};
const FIGHT = { runs: 3, since: '2026-11-25T04:00:00Z', actors: [{ actor: 'jane', actorType: 'user' }], fields: [] };
const SECRET = 'hunter2-do-not-print';

describe('a saved plan passed in-process: the members read after apply are checked first', () => {
  it('a well-formed drift, fight, notes, warnings and failures pass unchanged', async () => {
    const plan = withDrift(await planUpdating(scenario()), {
      detected: true,
      attribution: [ATTRIBUTION, { ...ATTRIBUTION, actorType: 'apiKey', viaOwnKey: true, remoteAddress: '10.0.0.1' }],
      fight: { ...FIGHT, actors: [{ actor: 'ci', actorType: 'apiKey', viaOwnKey: true }], fields: ['enabled'] },
    });
    const full = { ...plan, notes: ['a note'], warnings: ['a warning'] };
    expect(checkSavedPlan(JSON.parse(JSON.stringify(full)))).toEqual(full);
  });

  it.each([
    ['drift not an object', (p: Plan) => withDrift(p, [SECRET]), 'drift is not an object'],
    ['drift.detected not true', (p: Plan) => withDrift(p, { detected: SECRET }), 'drift.detected is not true'],
    [
      'attribution not a list',
      (p: Plan) => withDrift(p, { detected: true, attribution: { actor: SECRET } }),
      'drift.attribution is not a list',
    ],
    [
      'an attribution without its actor',
      (p: Plan) => withDrift(p, { detected: true, attribution: [ATTRIBUTION, { ...ATTRIBUTION, actor: 7 }] }),
      'drift.attribution[1].actor is not a string',
    ],
    [
      'an attribution with another actor type',
      (p: Plan) => withDrift(p, { detected: true, attribution: [{ ...ATTRIBUTION, actorType: SECRET }] }),
      'drift.attribution[0].actorType is not user, apiKey or unknown',
    ],
    [
      'viaOwnKey not true',
      (p: Plan) => withDrift(p, { detected: true, attribution: [{ ...ATTRIBUTION, viaOwnKey: SECRET }] }),
      'drift.attribution[0].viaOwnKey is not true',
    ],
    [
      'a fight without its runs',
      (p: Plan) => withDrift(p, { detected: true, fight: { ...FIGHT, runs: SECRET } }),
      'drift.fight.runs is not a whole number of runs',
    ],
    [
      'a fight actor of type unknown',
      (p: Plan) =>
        withDrift(p, { detected: true, fight: { ...FIGHT, actors: [{ actor: 'x', actorType: 'unknown' }] } }),
      'drift.fight.actors[0].actorType is not user or apiKey',
    ],
    [
      'fight fields not a list of strings',
      (p: Plan) => withDrift(p, { detected: true, fight: { ...FIGHT, fields: ['enabled', { path: SECRET }] } }),
      'drift.fight.fields[1] is not a string',
    ],
    [
      'a template without its file',
      (p: Plan) => withChange(p, { template: { name: SECRET, line: 3 } }),
      'template is not an object with a name and a file',
    ],
    [
      'a template line that is no line number',
      (p: Plan) => withChange(p, { template: { name: 'baseline', file: 't.yaml', line: 0 } }),
      'template.line is not a line number',
    ],
  ])('%s: refused, naming the change and the path', async (_name, edit, problem) => {
    const plan = edit(await planUpdating(scenario()));
    const at = plan.changes.findIndex((c) => c.action === 'disable');
    let error: unknown;
    try {
      checkSavedPlan(JSON.parse(JSON.stringify(plan)));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SavedPlanInvalidError);
    expect((error as Error).message).toBe(`the saved plan has a malformed change (changes[${at}]: ${problem})`);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it.each([
    ['notes not a list', { notes: SECRET }, 'notes is not a list'],
    ['a note not a string', { notes: ['fine', { text: SECRET }] }, 'notes[1] is not a string'],
    ['a warning not a string', { warnings: [7] }, 'warnings[0] is not a string'],
    ['a failure not an object', { failures: [SECRET] }, 'failures[0] is not an object'],
    [
      'a failure without its target',
      { failures: [{ phase: 'read', message: SECRET }] },
      'failures[0].target.type is not project, organization or global',
    ],
    [
      'a failure of an unknown phase',
      { failures: [{ target: { type: 'project', id: P1, name: 'p' }, phase: SECRET, message: 'm' }] },
      'failures[0].phase is not read, plan, apply or verify',
    ],
    // Read by the reports, and by apply to locate a failing secret reference (apply-secret-places.ts).
    ['desired without its digest', { desired: { files: [] } }, 'desired.digest is not a string'],
    [
      'a desired file without its sha256',
      { desired: { digest: 'd', files: [{ path: 'projects/p.yaml', sha256: 7 }] } },
      'desired.files[0].sha256 is not a string',
    ],
    ['change windows not a list', { changeWindows: SECRET }, 'changeWindows is not a list'],
    [
      'a weekly window with an unknown time zone',
      { changeWindows: [{ name: 'w', kind: 'deny', days: ['Mon'], start: '09:00', end: '17:00', timeZone: SECRET }] },
      'changeWindows[0].timeZone is not a known time zone',
    ],
    [
      'an absolute window ending before it starts',
      { changeWindows: [{ name: 'w', kind: 'deny', from: '2026-12-02T00:00:00Z', until: '2026-12-01T00:00:00Z' }] },
      'changeWindows[0] has no from before until',
    ],
    [
      'a window hold of an unknown kind',
      { windowHolds: { [`project:${P1}`]: { kind: SECRET, windows: ['w'] } } },
      `windowHolds["project:${P1}"].kind is not allow or deny`,
    ],
  ])('%s: refused, naming the path', async (_name, members, problem) => {
    const plan = { ...(await planUpdating(scenario())), ...members };
    expect(() => checkSavedPlan(JSON.parse(JSON.stringify(plan)))).toThrow(
      new SavedPlanInvalidError(`the saved plan has a malformed member (${problem})`),
    );
  });

  it.each([
    // The mode decides which targets apply writes to (run-apply.ts); createdAt becomes a fight's `since` in the state.
    [
      'an unknown mode',
      { mode: 'destroy' },
      `the saved plan's mode must be one of observe, plan, apply; found "destroy"`,
    ],
    ['no mode', { mode: undefined }, `the saved plan's mode must be one of observe, plan, apply; it is missing`],
    ['a createdAt that is no string', { createdAt: 5 }, 'the saved plan has no createdAt'],
    ['no runId', { runId: undefined }, 'the saved plan has no runId'],
  ])('a plan with %s is refused, saying which member', async (_name, members, message) => {
    const plan = { ...(await planUpdating(scenario())), ...members };
    expect(() => checkSavedPlan(JSON.parse(JSON.stringify(plan)))).toThrow(new SavedPlanInvalidError(message));
  });

  it.each([
    ['an attribution that is no list', { detected: true, attribution: { actor: 'jane' } }, {}],
    ['a warning that is no string', undefined, { warnings: [7] }],
  ])('apply of a plan with %s writes nothing and says why', async (_name, drift, members) => {
    const h = scenario();
    const planned = await planUpdating(h);
    // Malformed on purpose: what an in-process caller could hand over (the type would not let it through otherwise).
    const plan = { ...(drift === undefined ? planned : withDrift(planned, drift)), ...members } as unknown as Plan;
    const writes = h.world.writes().length;
    const enabled = [...(h.world.groups.get(P1)?.alerts.values() ?? [])].map((a) => a.enabled);
    await expect(h.run('apply', { savedPlan: plan })).rejects.toThrow(SavedPlanInvalidError);
    expect(h.world.writes().length).toBe(writes);
    expect([...(h.world.groups.get(P1)?.alerts.values() ?? [])].map((a) => a.enabled)).toEqual(enabled);
  });
});
