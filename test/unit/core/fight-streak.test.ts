// Scenario: the streak arithmetic of update-fight detection, table-driven: how one more reverted drift grows, keeps or restarts an object's streak, when the plan warns (FIGHT_RUNS-th run, not before), what an apply records (applied grows, failed keeps, in sync resets, gone forgets), and how stored streaks pass the state's shape check.
import { describe, expect, it } from 'vitest';
import { fightWarning, markFights, rewordUnwrittenFights, UPDATE_FIGHT } from '../../../lambdas/core/fight-notice.ts';
import {
  DELETED_FIELD,
  FIGHT_RUNS,
  MAX_STREAK_FIELDS,
  MAX_STREAK_TEXT,
  nextStreak,
  recordStreaks,
  streakKey,
} from '../../../lambdas/core/fight-streak.ts';
import {
  type Change,
  type ChangeResult,
  type DriftAttribution,
  PLAN_FORMAT_VERSION,
  type Plan,
  type TargetRef,
} from '../../../lambdas/core/model.ts';
import type { DriftStreak, ReconcileState } from '../../../lambdas/core/ports.ts';
import { changeBody } from '../../../lambdas/core/render/change-lines.ts';
import { stateDocumentProblem } from '../../../lambdas/core/state-check.ts';
import { forgetDeparted } from '../../../lambdas/core/state-retention.ts';

const P: TargetRef = { type: 'project', id: 'p1', name: 'payments-prod' };
const ORG: TargetRef = { type: 'organization', id: 'o1', name: 'acme' };
const T0 = '2026-11-01T10:00:00.000Z';
const NOW = '2026-11-01T10:30:00.000Z';

function by(actor: string, actorType: DriftAttribution['actorType'] = 'apiKey', own = false): DriftAttribution {
  return {
    eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    created: '2026-11-01T10:29:00Z',
    actor,
    actorType,
    eventId: `e-${actor}`,
    ...(own ? { viaOwnKey: true as const } : {}),
  };
}

/** A drift of alert config `key` put back by an update: the given field paths, the given authors. */
function drift(paths: string[], authors: DriftAttribution[] = [], over: Partial<Change> = {}): Change {
  return {
    target: P,
    kind: 'alertConfig',
    key: 'no-primary',
    action: 'update',
    id: 'c1',
    fields: paths.map((path) => ({ path, before: 1, after: 2 })),
    reason: 'differs',
    drift: { detected: true, ...(authors.length > 0 ? { attribution: authors } : {}) },
    ...over,
  };
}

const streak = (runs: number, actors: string[], fields: string[]): DriftStreak => ({ runs, since: T0, actors, fields });

describe('nextStreak: one more run that found the object drifted and put it back', () => {
  it.each([
    {
      name: 'no streak yet: starts at 1, this run begins it',
      prev: undefined,
      change: drift(['enabled'], [by('jdoekey1')]),
      want: { runs: 1, since: NOW, actors: ['apiKey:jdoekey1'], fields: ['enabled'] },
    },
    {
      name: 'same actor, same field: grows and keeps its start',
      prev: streak(2, ['apiKey:jdoekey1'], ['enabled']),
      change: drift(['enabled'], [by('jdoekey1')]),
      want: { runs: 3, since: T0, actors: ['apiKey:jdoekey1'], fields: ['enabled'] },
    },
    {
      name: 'same actor, another field: grows on the actor alone',
      prev: streak(2, ['apiKey:jdoekey1'], ['enabled']),
      change: drift(['metricThreshold.threshold'], [by('jdoekey1')]),
      want: { runs: 3, since: T0, actors: ['apiKey:jdoekey1'], fields: [] },
    },
    {
      name: 'another actor, same field: grows on the field alone',
      prev: streak(1, ['user:alice'], ['enabled']),
      change: drift(['enabled'], [by('bob', 'user')]),
      want: { runs: 2, since: T0, actors: [], fields: ['enabled'] },
    },
    {
      name: 'no author named (events unavailable), same field: grows on the field',
      prev: streak(2, ['apiKey:jdoekey1'], ['enabled']),
      change: drift(['enabled']),
      want: { runs: 3, since: T0, actors: [], fields: ['enabled'] },
    },
    {
      name: 'nothing in common with the runs before: a new streak at 1',
      prev: streak(2, ['apiKey:jdoekey1'], ['enabled']),
      change: drift(['intervalMin'], [by('bob', 'user')]),
      want: { runs: 1, since: NOW, actors: ['user:bob'], fields: ['intervalMin'] },
    },
    {
      name: 'an event naming no one is not an actor; our own key outside our runs is one of its own kind',
      prev: undefined,
      change: drift(['enabled'], [by('unknown', 'unknown'), by('gitopsbt', 'apiKey', true), by('gitopsbt')]),
      want: { runs: 1, since: NOW, actors: ['apiKey:gitopsbt', 'ownKey:gitopsbt'], fields: ['enabled'] },
    },
    {
      name: 'a config deleted outside and created again: the field is (deleted)',
      prev: streak(1, [], [DELETED_FIELD]),
      change: drift([], [], { action: 'create', id: undefined }),
      want: { runs: 2, since: T0, actors: [], fields: [DELETED_FIELD] },
    },
  ])('$name', ({ prev, change, want }) => {
    expect(nextStreak(prev, change, NOW)).toEqual(want);
  });

  it('keeps at most MAX_STREAK_FIELDS paths, each at most MAX_STREAK_TEXT long, cut the same way every run', () => {
    const many = Array.from({ length: MAX_STREAK_FIELDS + 7 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    const long = `notifications[EMAIL:${'x'.repeat(MAX_STREAK_TEXT * 2)}]`;
    const first = nextStreak(undefined, drift([...many, long], [by('k'.repeat(MAX_STREAK_TEXT + 50))]), NOW);
    expect(first.fields).toHaveLength(MAX_STREAK_FIELDS);
    expect(first.actors[0]).toHaveLength(MAX_STREAK_TEXT);
    const again = nextStreak(first, drift([...many, long], [by('k'.repeat(MAX_STREAK_TEXT + 50))]), NOW);
    expect(again.runs).toBe(2);
    expect(again.actors).toEqual(first.actors);
  });

  it("an update's unmodelled members (what its PUT leaves out) are no drifted field: another field's drift starts afresh", () => {
    const unsent = { path: 'severityOverride', unmodelled: true as const };
    const first = nextStreak(
      undefined,
      { ...drift(['enabled']), fields: [{ path: 'enabled', before: 1, after: 2 }, unsent] },
      NOW,
    );
    expect(first.fields).toEqual(['enabled']);
    const other = drift(['metricThreshold.threshold']);
    other.fields.push(unsent);
    expect(nextStreak(first, other, NOW)).toEqual({
      runs: 1,
      since: NOW,
      actors: [],
      fields: ['metricThreshold.threshold'],
    });
  });
});

function state(streaks: Record<string, DriftStreak> | undefined, org?: Record<string, DriftStreak>): ReconcileState {
  return {
    formatVersion: 1,
    updatedAt: T0,
    projects: { p1: { alertConfigs: {}, ...(streaks === undefined ? {} : { driftStreaks: streaks }) } },
    ...(org === undefined ? {} : { organizations: { o1: { driftStreaks: org } } }),
  };
}

/** Every target's mode is apply. */
const everyTarget = () => true;

describe('markFights: the plan warns on the FIGHT_RUNS-th consecutive run, not before', () => {
  it.each(Array.from({ length: FIGHT_RUNS + 1 }, (_, stored) => ({ stored, warns: stored + 1 >= FIGHT_RUNS })))(
    'with $stored run(s) stored, this run warns: $warns',
    ({ stored, warns }) => {
      const before = stored === 0 ? undefined : { 'alertConfig:no-primary': streak(stored, ['apiKey:jdoekey1'], []) };
      const change = drift(['enabled'], [by('jdoekey1')]);
      const warnings = markFights([change], state(before), NOW, everyTarget);
      expect(warnings).toHaveLength(warns ? 1 : 0);
      expect(change.drift?.fight !== undefined).toBe(warns);
      if (warns) expect(change.drift?.fight).toMatchObject({ runs: stored + 1 });
    },
  );

  it.each([
    { name: 'observe mode (a drift entry, nothing written)', over: { action: 'drift' as const } },
    { name: 'a drift a safety gate blocked', over: { action: 'blocked' as const } },
    { name: 'a delete of a changed config (not put back)', over: { action: 'delete' as const } },
  ])('no fight for $name', ({ over }) => {
    const change = drift(['enabled'], [by('jdoekey1')], over);
    const before = { 'alertConfig:no-primary': streak(FIGHT_RUNS + 4, ['apiKey:jdoekey1'], ['enabled']) };
    expect(markFights([change], state(before), NOW, everyTarget)).toEqual([]);
    expect(change.drift?.fight).toBeUndefined();
  });

  it('no fight for a target whose mode is not apply (apply skips it): only that target is left out', () => {
    const skipped = drift(['enabled'], [by('jdoekey1')]);
    const other = drift(['enabled'], [by('jdoekey1')], { target: { type: 'project', id: 'p2', name: 'other' } });
    const stored = { 'alertConfig:no-primary': streak(FIGHT_RUNS - 1, ['apiKey:jdoekey1'], ['enabled']) };
    const s = state(stored);
    s.projects.p2 = { alertConfigs: {}, driftStreaks: structuredClone(stored) };
    const warnings = markFights([skipped, other], s, NOW, (key) => key !== 'project:p1');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('in project other (p2)');
    expect(skipped.drift?.fight).toBeUndefined();
    expect(other.drift?.fight?.runs).toBe(FIGHT_RUNS);
  });

  it('a fight no audit event named an author for does not claim the events named different ones', () => {
    const change = drift(['enabled']);
    const before = { 'alertConfig:no-primary': streak(FIGHT_RUNS - 1, [], ['enabled']) };
    const [warning] = markFights([change], state(before), NOW, everyTarget);
    expect(warning).toContain(
      'found it changed (each time: enabled) and put it back (no author was named by the audit',
    );
    expect(warning).toContain('Ops Manager itself that changes the value back');
    expect(warning).not.toContain('did not name the same author');
  });

  it('an organization default server type is fought over like an alert config, and a pending change is no drift', () => {
    const server: Change = {
      target: ORG,
      kind: 'defaultServerType',
      key: 'defaultServerType',
      action: 'update',
      before: 'TEST_SERVER',
      after: 'PRODUCTION_SERVER',
      fields: [{ path: 'defaultServerType', before: 'TEST_SERVER', after: 'PRODUCTION_SERVER' }],
      reason: 'differs',
      drift: { detected: true, attribution: [by('alice', 'user')] },
    };
    const pending = drift(['enabled'], [], { drift: undefined });
    const warnings = markFights(
      [server, pending],
      state({ 'alertConfig:no-primary': streak(9, [], ['enabled']) }, { defaultServerType: streak(2, [], []) }),
      NOW,
      everyTarget,
    );
    // The stored org streak has nothing in common with this run (empty lists), so it restarts: no warning...
    expect(warnings).toEqual([]);
    const common = markFights(
      [server],
      state(undefined, { defaultServerType: streak(2, ['user:alice'], ['defaultServerType']) }),
      NOW,
      everyTarget,
    );
    // ...while one sharing the actor reaches FIGHT_RUNS.
    expect(common).toHaveLength(1);
    expect(common[0]).toContain('the default server type in organization acme (o1)');
    expect(common[0]).toContain('by user alice (each time: defaultServerType)');
    // A singleton has nothing to delete: out of git, it is left as it is.
    expect(common[0]).toContain('give it one owner (remove it from git to leave it to the other writer, or stop');
    expect(common[0]).not.toContain('spec.release');
  });

  it('the warning names the object, actors, runs and way out, and no value (secrets included)', () => {
    const change = drift([], [by('jdoekey1'), by('gitopsbt', 'apiKey', true)], {
      fields: [
        { path: 'notifications[WEBHOOK].webhookSecret', secret: true, note: 'changed on live' },
        { path: 'notifications[SLACK].channelName', before: '#hush-value-1', after: '#hush-value-2' },
      ],
      before: { webhookUrl: 'https://hush.example.invalid/value-3' },
    });
    const before = {
      'alertConfig:no-primary': streak(
        FIGHT_RUNS - 1,
        ['apiKey:jdoekey1', 'ownKey:gitopsbt'],
        ['notifications[SLACK].channelName', 'notifications[WEBHOOK].webhookSecret'],
      ),
    };
    const [warning] = markFights([change], state(before), NOW, everyTarget);
    expect(warning).toBe(
      fightWarning(change, change.drift?.fight as NonNullable<NonNullable<Change['drift']>['fight']>),
    );
    expect(warning?.startsWith(`${UPDATE_FIGHT}: alert config "no-primary" in project payments-prod (p1)`)).toBe(true);
    expect(warning).toContain(`${FIGHT_RUNS} consecutive runs since ${T0}`);
    expect(warning).toContain("API key jdoekey1 and this tool's own API key gitopsbt (used outside its runs)");
    expect(warning).toContain('notifications[WEBHOOK].webhookSecret');
    // An alert config is handed over by releasing it: removed from git, prune would delete it.
    expect(warning).toContain(
      'give it one owner (list "no-primary" in spec.release to leave it to the other writer (removed from git, it would be deleted where prune is on), or stop',
    );
    expect(warning).not.toMatch(/hush/);
    expect(changeBody(change).at(-1)).toBe(
      `update fight: changed outside opsman-gitops on ${FIGHT_RUNS} consecutive runs since ${T0} (see the warning)`,
    );
  });
});

/** A plan of target p1 (and o1) with `changes`, and one result per write. */
function planOf(changes: Change[], failures: Plan['failures'] = []): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'r',
    createdAt: NOW,
    mode: 'apply',
    desired: { digest: 'd', files: [] },
    liveDigests: { 'project:p1': 'x', 'organization:o1': 'y' },
    changes,
    failures,
  };
}
const result = (change: Change, status: ChangeResult['status']): ChangeResult => ({ change, status, durationMs: 1 });
const writable = () => undefined;

describe('recordStreaks: what an apply keeps', () => {
  const key = 'alertConfig:no-primary';
  const inSync = (k = 'no-primary'): Change => ({
    target: P,
    kind: 'alertConfig',
    key: k,
    action: 'noop',
    id: 'c1',
    fields: [],
    reason: 'in sync',
  });

  it.each([
    { name: 'a drift put back grows the streak', status: 'applied' as const, want: 3 },
    { name: 'a write that failed neither counts nor resets', status: 'failed' as const, want: 2 },
    { name: 'a write that did not stick neither counts nor resets', status: 'not-converging' as const, want: 2 },
  ])('$name', ({ status, want }) => {
    const s = state({ [key]: streak(2, ['apiKey:jdoekey1'], ['enabled']) });
    const change = drift(['enabled'], [by('jdoekey1')]);
    recordStreaks(planOf([change]), [result(change, status)], s, writable);
    expect(s.projects.p1?.driftStreaks?.[key]?.runs).toBe(want);
  });

  it('an object found in sync loses its streak, and so does one the plan no longer mentions (its key left git)', () => {
    const s = state({ [key]: streak(5, [], ['enabled']), 'alertConfig:gone': streak(2, [], ['x']) });
    recordStreaks(planOf([inSync()]), [], s, writable);
    expect(s.projects.p1?.driftStreaks).toBeUndefined();
  });

  it.each([
    { name: 'its delete blocked by a gate (prune off, protect, maxDeletes)', action: 'blocked' as const },
    { name: 'its delete not applied (failed)', action: 'delete' as const },
  ])(
    'a key that left git loses its streak even while the other writer keeps its config changed: $name',
    ({ action }) => {
      const s = state({ [key]: streak(2, ['apiKey:jdoekey1'], ['enabled']) });
      // As plan-alerts makes it: the owned config of a released key, changed since this tool last wrote it.
      const removal = drift([], [by('jdoekey1')], { action, before: { enabled: false }, reason: 'prune is off' });
      recordStreaks(planOf([removal]), action === 'delete' ? [result(removal, 'failed')] : [], s, writable);
      expect(s.projects.p1?.driftStreaks).toBeUndefined();
    },
  );

  it('a target not written (mode), or planned with a failure, keeps its streaks as stored', () => {
    const stored = { [key]: streak(2, [], ['enabled']) };
    const s = state(structuredClone(stored));
    recordStreaks(planOf([inSync()]), [], s, () => 'target mode is plan');
    expect(s.projects.p1?.driftStreaks).toEqual(stored);
    recordStreaks(planOf([], [{ target: P, phase: 'read', message: 'down' }]), [], s, writable);
    expect(s.projects.p1?.driftStreaks).toEqual(stored);
  });

  it('a drift standing (observe-like, blocked) keeps the streak; a first revert creates the entry', () => {
    const s = state({ [key]: streak(2, [], ['enabled']) });
    // A blocked change of a key still in git (not converging, say) carries its desired body.
    recordStreaks(planOf([drift(['enabled'], [], { action: 'blocked', after: { enabled: true } })]), [], s, writable);
    expect(s.projects.p1?.driftStreaks?.[key]?.runs).toBe(2);

    const fresh: ReconcileState = { formatVersion: 1, updatedAt: T0, projects: {} };
    const server: Change = {
      ...drift(['defaultServerType']),
      target: ORG,
      kind: 'defaultServerType',
      key: 'defaultServerType',
    };
    recordStreaks(planOf([server]), [result(server, 'applied')], fresh, writable);
    expect(fresh.organizations?.o1?.driftStreaks?.[streakKey(server)]).toEqual({
      runs: 1,
      since: NOW,
      actors: [],
      fields: ['defaultServerType'],
    });
    // Nothing to keep creates no entry for a target the state did not hold.
    expect(fresh.projects).toEqual({});
  });
});

describe('driftStreaks in the stored state (format 1, optional)', () => {
  const doc = (streaks: unknown) => ({
    formatVersion: 1,
    updatedAt: T0,
    projects: { p1: { alertConfigs: {}, driftStreaks: streaks } },
  });

  it('an older state without the field, and one with sound streaks, are usable', () => {
    expect(stateDocumentProblem({ formatVersion: 1, updatedAt: T0, projects: { p1: { alertConfigs: {} } } })).toBe(
      undefined,
    );
    expect(stateDocumentProblem(doc({ 'alertConfig:no-primary': streak(3, ['apiKey:k'], ['enabled']) }))).toBe(
      undefined,
    );
  });

  it.each([
    {
      name: 'runs zero',
      value: { ...streak(1, [], []), runs: 0 },
      path: /driftStreaks.k.runs is a number, expected a whole number/,
    },
    { name: 'runs as text', value: { ...streak(1, [], []), runs: '3' }, path: /driftStreaks.k.runs is a string/ },
    { name: 'actors missing', value: { runs: 1, since: T0, fields: [] }, path: /driftStreaks.k.actors is missing/ },
    {
      name: 'a field not text',
      value: { ...streak(1, [], []), fields: [7] },
      path: /driftStreaks.k.fields\[0\] is a number/,
    },
  ])('a malformed streak ($name) is corrupt state, named by path', ({ value, path }) => {
    const problem = stateDocumentProblem(doc({ k: value }));
    expect(problem?.kind).toBe('corrupt');
    expect(problem?.detail).toMatch(path);
  });

  it('a departed project holding only streaks is still forgotten (the field is one this release knows)', () => {
    const s = state({ 'alertConfig:x': streak(1, [], ['enabled']) });
    expect(forgetDeparted(s, new Set())).toEqual({ projects: 1, organizations: 0 });
    expect(s.projects).toEqual({});
  });
});

describe('rewordUnwrittenFights: the run report says what the write did', () => {
  const change = drift(['enabled'], [by('jdoekey1')]);
  const notice = {
    runs: FIGHT_RUNS,
    since: T0,
    actors: [{ actor: 'jdoekey1', actorType: 'apiKey' as const }],
    fields: ['enabled'],
  };
  (change.drift as NonNullable<Change['drift']>).fight = notice;
  const planned = fightWarning(change, notice);
  it.each([
    ['applied', 'and put it back.'],
    ['failed', `; the ${FIGHT_RUNS - 1} runs before this one put it back, this one did not (its write failed).`],
    ['skipped', `; the ${FIGHT_RUNS - 1} runs before this one put it back, this one did not (its write was skipped).`],
    [
      'not-converging',
      `; the ${FIGHT_RUNS - 1} runs before this one put it back, this one did not (its write was sent but Ops Manager did not show the result).`,
    ],
  ] as const)('%s', (status, says) => {
    const warnings = ['another warning', planned];
    rewordUnwrittenFights(warnings, [result(change, status)]);
    expect(warnings[0]).toBe('another warning');
    expect(warnings[1]).toContain(
      `found it changed by API key jdoekey1 (each time: enabled)${says.startsWith(';') ? says : ` ${says}`}`,
    );
    expect(warnings[1]?.startsWith(`${UPDATE_FIGHT}: alert config "no-primary"`)).toBe(true);
    expect(warnings[1]).toContain('give it one owner (list "no-primary" in spec.release');
  });
});
