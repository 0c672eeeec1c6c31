/**
 * The shape check of a stored state document, field by field: every field the core reads or writes through (records,
 * fingerprints, singleton digests, organizations) must have its type, or the document is refused as a whole. A state
 * that passed this check cannot make apply fail with a TypeError after it has written to Ops Manager. Unknown fields
 * are allowed (additions within format 1 stay readable); a newer `formatVersion` is told apart from a corrupt one.
 */
import { isRecord } from '../../shared/is-record.ts';

/** The format version this code reads and writes. */
export const STATE_FORMAT_VERSION = 1;

/** Why a document is not a usable state: `newer` when a later version of this tool wrote it. */
export interface StateProblem {
  kind: 'corrupt' | 'newer';
  /** What and where, without any value from the document (`projects.<id>.alertConfigs.<key>.id is a number...`). */
  detail: string;
}

/**
 * A check returns undefined, or the problem with its path relative to the value checked (`.id is a number, expected a
 * string`; `` for the value itself). Paths are only built on the way out of a failure: a state of 20,000 records is
 * checked without building a string per record (measured: 62 -> single-digit ms cold at 1,000 x 20).
 */
type Check = (value: unknown) => string | undefined;

/** `a number`, `null`, `an array`... never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** Keys come from the document: shown in full when short, cut otherwise (a message is not a dump). */
const at = (key: string) => `.${key.length > 80 ? `${key.slice(0, 80)}…` : key}`;

const string: Check = (v) => (typeof v === 'string' ? undefined : ` is ${kindOf(v)}, expected a string`);
const stringList: Check = (v) => {
  if (!Array.isArray(v)) return ` is ${kindOf(v)}, expected an array of strings`;
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'string') return `[${i}] is ${kindOf(v[i])}, expected a string`;
  }
  return undefined;
};

/** A field that must be present (the others are optional). */
const REQUIRED = new WeakSet<Check>();
const required = (check: Check): Check => {
  const wrapped: Check = (v) => check(v);
  REQUIRED.add(wrapped);
  return wrapped;
};

/** An object whose listed fields pass their checks: required ones always, the others when present. */
function object(fields: Record<string, Check>): Check {
  const names = Object.keys(fields);
  const checks = names.map((name) => fields[name] as Check);
  const needed = checks.map((check) => REQUIRED.has(check));
  return (v) => {
    if (!isRecord(v)) return ` is ${kindOf(v)}, expected an object`;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const field = v[name];
      if (field === undefined) {
        if (needed[i]) return `.${name} is missing`;
        continue;
      }
      const problem = (checks[i] as Check)(field);
      if (problem !== undefined) return `.${name}${problem}`;
    }
    return undefined;
  };
}

/** An object whose every value passes `check`. */
function mapOf(check: Check): Check {
  return (v) => {
    if (!isRecord(v)) return ` is ${kindOf(v)}, expected an object`;
    // for...in over parsed JSON: own keys only (JSON.parse makes plain objects), and no array of entries per map.
    for (const key in v) {
      const problem = check(v[key]);
      if (problem !== undefined) return `${at(key)}${problem}`;
    }
    return undefined;
  };
}

const alertRecord = object({
  id: string,
  fingerprint: string,
  secretFingerprints: mapOf(string),
  appliedDigest: string,
  ignoredFields: stringList,
  pendingCreate: object({
    runId: required(string),
    startedAt: required(string),
    desiredDigest: string,
    releasedIds: stringList,
  }),
  notConverging: object({ desiredDigest: required(string), since: required(string), fields: required(stringList) }),
  adoptedAt: string,
  createdAt: string,
});

/** A count of runs: an integer of 1 or more. */
const runCount: Check = (v) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1
    ? undefined
    : ` is ${kindOf(v)}, expected a whole number of 1 or more`;

const driftStreak = object({
  runs: required(runCount),
  since: required(string),
  actors: required(stringList),
  fields: required(stringList),
});

const project = object({
  lastReconciledAt: string,
  alertConfigs: required(mapOf(alertRecord)),
  singletons: mapOf(string),
  driftStreaks: mapOf(driftStreak),
});

const organization = object({ lastReconciledAt: string, singletons: mapOf(string), driftStreaks: mapOf(driftStreak) });

const document = object({
  updatedAt: required(string),
  lastRun: object({ runId: required(string), finishedAt: required(string), mode: required(string) }),
  projects: required(mapOf(project)),
  organizations: mapOf(organization),
  opsManager: object({ baseUrl: required(string) }),
  fingerprintKeyCheck: string,
});

/** Why `value` (parsed JSON) is not a state document this code can use; undefined when it is one. */
export function stateDocumentProblem(value: unknown): StateProblem | undefined {
  if (!isRecord(value)) return { kind: 'corrupt', detail: `the document is ${kindOf(value)}, expected an object` };
  const version = value.formatVersion;
  if (typeof version === 'number' && Number.isInteger(version) && version > STATE_FORMAT_VERSION) {
    return { kind: 'newer', detail: `formatVersion ${version}` };
  }
  if (version !== STATE_FORMAT_VERSION) {
    const found = typeof version === 'number' ? String(version) : kindOf(version);
    return { kind: 'corrupt', detail: `formatVersion is ${found}, expected ${STATE_FORMAT_VERSION}` };
  }
  const problem = document(value);
  return problem === undefined ? undefined : { kind: 'corrupt', detail: problem.replace(/^\./, '') };
}
