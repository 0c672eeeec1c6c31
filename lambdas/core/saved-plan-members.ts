/**
 * Shape checks of the parts of a saved plan read after its writes: a change's `drift` (its attribution and update
 * fight, read by the streak bookkeeping and the renderers), and the plan's `notes`, `warnings` and `failures`. A plan
 * passed in-process (not through the sealed CLI file) is refused by path before any write, rather than failing with a
 * TypeError once its writes are done. Problems name the path and what was expected, never the value found (a plan may
 * carry anything a hand put there).
 */

/** The target types a plan names. */
export const TARGET_TYPES: ReadonlySet<string> = new Set(['project', 'organization', 'global']);
const PHASES: ReadonlySet<string> = new Set(['read', 'plan', 'apply', 'verify']);
const ATTRIBUTION_ACTORS: ReadonlySet<string> = new Set(['user', 'apiKey', 'unknown']);
const FIGHT_ACTORS: ReadonlySet<string> = new Set(['user', 'apiKey']);

/** Whether `v` is a plain object (no array, no null). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The first problem of `v` as a list checked item by item, or undefined; `at` is the list's path. */
function listProblem(v: unknown, at: string, item: (x: unknown, at: string) => string | undefined): string | undefined {
  if (!Array.isArray(v)) return `${at} is not a list`;
  for (const [i, x] of v.entries()) {
    const problem = item(x, `${at}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const stringItem = (x: unknown, at: string) => (typeof x === 'string' ? undefined : `${at} is not a string`);

/** The first member of `o` named in `names` that is not a string, as a problem. */
function stringMembers(o: Record<string, unknown>, at: string, names: readonly string[]): string | undefined {
  const name = names.find((n) => typeof o[n] !== 'string');
  return name === undefined ? undefined : `${at}.${name} is not a string`;
}

/** `viaOwnKey`, when present, is `true`: the only value a plan writes. */
function ownKeyProblem(o: Record<string, unknown>, at: string): string | undefined {
  return o.viaOwnKey === undefined || o.viaOwnKey === true ? undefined : `${at}.viaOwnKey is not true`;
}

function attributionProblem(a: unknown, at: string): string | undefined {
  if (!isObject(a)) return `${at} is not an object`;
  const missing = stringMembers(a, at, ['eventTypeName', 'created', 'actor', 'eventId']);
  if (missing !== undefined) return missing;
  if (typeof a.actorType !== 'string' || !ATTRIBUTION_ACTORS.has(a.actorType)) {
    return `${at}.actorType is not user, apiKey or unknown`;
  }
  if (a.remoteAddress !== undefined && typeof a.remoteAddress !== 'string')
    return `${at}.remoteAddress is not a string`;
  return ownKeyProblem(a, at);
}

function fightActorProblem(a: unknown, at: string): string | undefined {
  if (!isObject(a)) return `${at} is not an object`;
  if (typeof a.actor !== 'string') return `${at}.actor is not a string`;
  if (typeof a.actorType !== 'string' || !FIGHT_ACTORS.has(a.actorType)) return `${at}.actorType is not user or apiKey`;
  return ownKeyProblem(a, at);
}

function fightProblem(f: unknown, at: string): string | undefined {
  if (!isObject(f)) return `${at} is not an object`;
  if (typeof f.runs !== 'number' || !Number.isInteger(f.runs) || f.runs < 1)
    return `${at}.runs is not a whole number of runs`;
  if (typeof f.since !== 'string') return `${at}.since is not a string`;
  return listProblem(f.actors, `${at}.actors`, fightActorProblem) ?? listProblem(f.fields, `${at}.fields`, stringItem);
}

/** What is wrong with a change's `drift` (absent is fine), or undefined; paths start at `drift`. */
export function driftProblem(drift: unknown): string | undefined {
  if (drift === undefined) return undefined;
  if (!isObject(drift)) return 'drift is not an object';
  if (drift.detected !== true) return 'drift.detected is not true';
  if (drift.attribution !== undefined) {
    const problem = listProblem(drift.attribution, 'drift.attribution', attributionProblem);
    if (problem !== undefined) return problem;
  }
  return drift.fight === undefined ? undefined : fightProblem(drift.fight, 'drift.fight');
}

function failureProblem(f: unknown, at: string): string | undefined {
  if (!isObject(f)) return `${at} is not an object`;
  const t = f.target;
  if (!isObject(t) || typeof t.type !== 'string' || !TARGET_TYPES.has(t.type)) {
    return `${at}.target.type is not project, organization or global`;
  }
  if (typeof t.id !== 'string' || typeof t.name !== 'string') return `${at}.target.id and .name must be strings`;
  if (typeof f.phase !== 'string' || !PHASES.has(f.phase)) return `${at}.phase is not read, plan, apply or verify`;
  if (typeof f.message !== 'string') return `${at}.message is not a string`;
  if (f.code !== undefined && typeof f.code !== 'string') return `${at}.code is not a string`;
  if (f.httpStatus !== undefined && typeof f.httpStatus !== 'number') return `${at}.httpStatus is not a number`;
  return undefined;
}

/**
 * What is wrong with the plan's `notes`, `warnings` (each absent, or a list of strings) and `failures` (a list of
 * target failures), or undefined; the path starts at the member (`notes[2] is not a string`).
 */
export function planMembersProblem(plan: Record<string, unknown>): string | undefined {
  for (const name of ['notes', 'warnings'] as const) {
    if (plan[name] === undefined) continue;
    const problem = listProblem(plan[name], name, stringItem);
    if (problem !== undefined) return problem;
  }
  return listProblem(plan.failures, 'failures', failureProblem);
}
