/**
 * Shape checks of the plan-level members of a saved plan and the helpers the change checks share: a change's `drift`
 * (its attribution and update fight, read by the streak bookkeeping and the renderers); the plan's `notes`, `warnings`
 * and `failures`; `unmanaged` (read after an ambiguous create, and by the renderers); `liveDigests` and `liveReads`
 * (what the freshness check re-reads, and which targets count as reconciled) and `targetModes` (which targets apply
 * writes). A plan passed in-process, or re-sealed by hand with the state dir's key, is refused by path before any
 * write, rather than failing with a TypeError once its writes are done. Problems name the path and what was expected,
 * never the value found (a plan may carry anything a hand put there).
 */
import { isRecord } from '../../shared/is-record.ts';
import { changeWindowsProblem } from './change-window-shape.ts';
import { type ChangeKind, MODES, type Mode } from './model.ts';
import type { ProjectComponent } from './read-live.ts';

/** The target types a plan names. */
export const TARGET_TYPES: ReadonlySet<string> = new Set(['project', 'organization', 'global']);
/** The kinds of change (and of unmanaged object) a plan names (the type checker keeps the list complete). */
export const CHANGE_KINDS: ReadonlySet<string> = new Set(
  Object.keys({
    alertConfig: true,
    defaultServerType: true,
    auditLogRotation: true,
    versionManifest: true,
  } satisfies Record<ChangeKind, true>),
);
/** The live components a target's digest may cover (`liveReads`): a project's, and the installation's manifest. */
const LIVE_COMPONENTS: ReadonlySet<string> = new Set(
  Object.keys({
    alertConfigs: true,
    defaultServerType: true,
    auditLogRotation: true,
    versionManifest: true,
  } satisfies Record<ProjectComponent | 'versionManifest', true>),
);
const MODE_NAMES: ReadonlySet<string> = new Set<Mode>(MODES);
const PHASES: ReadonlySet<string> = new Set(['read', 'plan', 'apply', 'verify']);
const ATTRIBUTION_ACTORS: ReadonlySet<string> = new Set(['user', 'apiKey', 'unknown']);
const FIGHT_ACTORS: ReadonlySet<string> = new Set(['user', 'apiKey']);

/** The first problem of `v` as a list checked item by item, or undefined; `at` is the list's path. */
export function listProblem(
  v: unknown,
  at: string,
  item: (x: unknown, at: string) => string | undefined,
): string | undefined {
  if (!Array.isArray(v)) return `${at} is not a list`;
  for (const [i, x] of v.entries()) {
    const problem = item(x, `${at}[${i}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A list item that must be a string (for listProblem). */
export const stringItem = (x: unknown, at: string): string | undefined =>
  typeof x === 'string' ? undefined : `${at} is not a string`;

/** The first member of `o` named in `names` that is not a string, as a problem. */
export function stringMembers(o: Record<string, unknown>, at: string, names: readonly string[]): string | undefined {
  const name = names.find((n) => typeof o[n] !== 'string');
  return name === undefined ? undefined : `${at}.${name} is not a string`;
}

/** `viaOwnKey`, when present, is `true`: the only value a plan writes. */
function ownKeyProblem(o: Record<string, unknown>, at: string): string | undefined {
  return o.viaOwnKey === undefined || o.viaOwnKey === true ? undefined : `${at}.viaOwnKey is not true`;
}

function attributionProblem(a: unknown, at: string): string | undefined {
  if (!isRecord(a)) return `${at} is not an object`;
  const missing = stringMembers(a, at, ['eventTypeName', 'created', 'actor', 'eventId']);
  if (missing !== undefined) return missing;
  if (typeof a.actorType !== 'string' || !ATTRIBUTION_ACTORS.has(a.actorType)) {
    return `${at}.actorType is not user, apiKey or unknown`;
  }
  if (a.remoteAddress !== undefined && typeof a.remoteAddress !== 'string')
    return `${at}.remoteAddress is not a string`;
  if (a.keyIdOnly !== undefined && a.keyIdOnly !== true) return `${at}.keyIdOnly is not true`;
  return ownKeyProblem(a, at);
}

function fightActorProblem(a: unknown, at: string): string | undefined {
  if (!isRecord(a)) return `${at} is not an object`;
  if (typeof a.actor !== 'string') return `${at}.actor is not a string`;
  if (typeof a.actorType !== 'string' || !FIGHT_ACTORS.has(a.actorType)) return `${at}.actorType is not user or apiKey`;
  return ownKeyProblem(a, at);
}

function fightProblem(f: unknown, at: string): string | undefined {
  if (!isRecord(f)) return `${at} is not an object`;
  if (typeof f.runs !== 'number' || !Number.isInteger(f.runs) || f.runs < 1)
    return `${at}.runs is not a whole number of runs`;
  if (typeof f.since !== 'string') return `${at}.since is not a string`;
  return listProblem(f.actors, `${at}.actors`, fightActorProblem) ?? listProblem(f.fields, `${at}.fields`, stringItem);
}

/** What is wrong with a change's `drift` (absent is fine), or undefined; paths start at `drift`. */
export function driftProblem(drift: unknown): string | undefined {
  if (drift === undefined) return undefined;
  if (!isRecord(drift)) return 'drift is not an object';
  if (drift.detected !== true) return 'drift.detected is not true';
  if (drift.attribution !== undefined) {
    const problem = listProblem(drift.attribution, 'drift.attribution', attributionProblem);
    if (problem !== undefined) return problem;
  }
  if (drift.unattributed !== undefined && typeof drift.unattributed !== 'string') {
    return 'drift.unattributed is not a string';
  }
  return drift.fight === undefined ? undefined : fightProblem(drift.fight, 'drift.fight');
}

function desiredFileProblem(f: unknown, at: string): string | undefined {
  return isRecord(f) ? stringMembers(f, at, ['path', 'sha256']) : `${at} is not an object`;
}

/**
 * What is wrong with a plan's `desired` (`{digest, files: [{path, sha256}]}`: read by the reports and by apply to
 * locate a failing secret reference), or undefined; paths start at `desired`.
 */
export function desiredProblem(desired: unknown): string | undefined {
  if (!isRecord(desired)) return 'desired is not an object';
  if (typeof desired.digest !== 'string') return 'desired.digest is not a string';
  return listProblem(desired.files, 'desired.files', desiredFileProblem);
}

/** What is wrong with a target (`{type, id, name}`) at path `at`, or undefined. */
export function targetProblem(t: unknown, at: string): string | undefined {
  if (!isRecord(t) || typeof t.type !== 'string' || !TARGET_TYPES.has(t.type)) {
    return `${at}.type is not project, organization or global`;
  }
  if (typeof t.id !== 'string' || typeof t.name !== 'string') return `${at}.id and ${at}.name must be strings`;
  return undefined;
}

function failureProblem(f: unknown, at: string): string | undefined {
  if (!isRecord(f)) return `${at} is not an object`;
  const target = targetProblem(f.target, `${at}.target`);
  if (target !== undefined) return target;
  if (typeof f.phase !== 'string' || !PHASES.has(f.phase)) return `${at}.phase is not read, plan, apply or verify`;
  if (typeof f.message !== 'string') return `${at}.message is not a string`;
  if (f.code !== undefined && typeof f.code !== 'string') return `${at}.code is not a string`;
  if (f.httpStatus !== undefined && typeof f.httpStatus !== 'number') return `${at}.httpStatus is not a number`;
  return undefined;
}

function unmanagedProblem(u: unknown, at: string): string | undefined {
  if (!isRecord(u)) return `${at} is not an object`;
  const target = targetProblem(u.target, `${at}.target`);
  if (target !== undefined) return target;
  if (typeof u.kind !== 'string' || !CHANGE_KINDS.has(u.kind)) return `${at}.kind is not a kind of change`;
  return stringMembers(u, at, ['id', 'summary']);
}

/** `type:id` with a target type and an id: the form of every key of `liveDigests`, `liveReads`, `targetModes`. */
function isTargetKey(key: string): boolean {
  const at = key.indexOf(':');
  return at > 0 && at < key.length - 1 && TARGET_TYPES.has(key.slice(0, at));
}

/**
 * The first problem of `v` as a map from target key to a value checked by `value`, or undefined; `name` is the
 * member's. A key is quoted (as JSON) once it is known to be a target key, never before.
 */
function targetMapProblem(
  v: unknown,
  name: string,
  value: (x: unknown, at: string) => string | undefined,
): string | undefined {
  if (!isRecord(v)) return `${name} is not an object`;
  for (const [key, x] of Object.entries(v)) {
    if (!isTargetKey(key))
      return `${name} has a key that is not a target key (project:<id>, organization:<id>, global:global)`;
    const problem = value(x, `${name}[${JSON.stringify(key)}]`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A window hold: `{kind, windows, until?}` (shown in the plan; an apply evaluates the windows again). */
function holdProblem(x: unknown, at: string): string | undefined {
  if (!isRecord(x)) return `${at} is not an object`;
  if (x.kind !== 'allow' && x.kind !== 'deny') return `${at}.kind is not allow or deny`;
  const names = listProblem(x.windows, `${at}.windows`, stringItem);
  if (names !== undefined) return names;
  return x.until === undefined || typeof x.until === 'string' ? undefined : `${at}.until is not a string`;
}

const modeValue = (x: unknown, at: string) =>
  typeof x === 'string' && MODE_NAMES.has(x) ? undefined : `${at} is not observe, plan or apply`;
const componentItem = (x: unknown, at: string) =>
  typeof x === 'string' && LIVE_COMPONENTS.has(x)
    ? undefined
    : `${at} is not a live component (${[...LIVE_COMPONENTS].join(', ')})`;

/**
 * What is wrong with the plan's members other than its changes, or undefined: `notes`, `warnings` (each absent, or a
 * list of strings), `failures` (a list of target failures), `unmanaged` (absent, or a list of `{target, kind, id,
 * summary}`), `liveDigests` (target key -> digest), `liveReads` (absent, or target key -> list of live components) and
 * `targetModes` (absent, or target key -> mode), `changeWindows` (absent, or a list of windows an apply evaluates) and
 * `windowHolds` (absent, or target key -> hold). The path starts at the member (`notes[2] is not a string`).
 */
export function planMembersProblem(plan: Record<string, unknown>): string | undefined {
  for (const name of ['notes', 'warnings', 'projects'] as const) {
    if (plan[name] === undefined) continue;
    const problem = listProblem(plan[name], name, stringItem);
    if (problem !== undefined) return problem;
  }
  return (
    listProblem(plan.failures, 'failures', failureProblem) ??
    (plan.unmanaged === undefined ? undefined : listProblem(plan.unmanaged, 'unmanaged', unmanagedProblem)) ??
    targetMapProblem(plan.liveDigests, 'liveDigests', (x, at) =>
      typeof x === 'string' ? undefined : `${at} is not a string`,
    ) ??
    (plan.liveReads === undefined
      ? undefined
      : targetMapProblem(plan.liveReads, 'liveReads', (x, at) => listProblem(x, at, componentItem))) ??
    (plan.targetModes === undefined ? undefined : targetMapProblem(plan.targetModes, 'targetModes', modeValue)) ??
    (plan.changeWindows === undefined ? undefined : changeWindowsProblem(plan.changeWindows, 'changeWindows')) ??
    (plan.windowHolds === undefined ? undefined : targetMapProblem(plan.windowHolds, 'windowHolds', holdProblem))
  );
}
