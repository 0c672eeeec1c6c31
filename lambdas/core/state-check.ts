/**
 * The shape check of a stored state document, field by field: every field the core reads or writes through (records,
 * fingerprints, singleton digests, organizations) must have its type, or the document is refused as a whole. A state
 * that passed this check cannot make apply fail with a TypeError after it has written to Ops Manager. Unknown fields
 * are allowed (additions within format 1 stay readable); a newer `formatVersion` is told apart from a corrupt one.
 */

/** The format version this code reads and writes. */
export const STATE_FORMAT_VERSION = 1;

/** Why a document is not a usable state: `newer` when a later version of this tool wrote it. */
export interface StateProblem {
  kind: 'corrupt' | 'newer';
  /** What and where, without any value from the document (`projects.<id>.alertConfigs.<key>.id is a number...`). */
  detail: string;
}

type Check = (value: unknown, path: string) => string | undefined;

/** `a number`, `null`, `an array`... never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys come from the document: shown in full when short, cut otherwise (a message is not a dump). */
const at = (path: string, key: string) => `${path}.${key.length > 80 ? `${key.slice(0, 80)}…` : key}`;

const string: Check = (v, p) => (typeof v === 'string' ? undefined : `${p} is ${kindOf(v)}, expected a string`);
const stringList: Check = (v, p) => {
  if (!Array.isArray(v)) return `${p} is ${kindOf(v)}, expected an array of strings`;
  const bad = v.findIndex((item) => typeof item !== 'string');
  return bad < 0 ? undefined : `${p}[${bad}] is ${kindOf(v[bad])}, expected a string`;
};

/** A field that must be present (the others are optional). */
const REQUIRED = new WeakSet<Check>();
const required = (check: Check): Check => {
  const wrapped: Check = (v, p) => check(v, p);
  REQUIRED.add(wrapped);
  return wrapped;
};

/** An object whose listed fields pass their checks: required ones always, the others when present. */
function object(fields: Record<string, Check>): Check {
  return (v, p) => {
    if (!isRecord(v)) return `${p} is ${kindOf(v)}, expected an object`;
    for (const [name, check] of Object.entries(fields)) {
      if (v[name] === undefined) {
        if (REQUIRED.has(check)) return `${p}.${name} is missing`;
        continue;
      }
      const problem = check(v[name], `${p}.${name}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object whose every value passes `check`. */
function mapOf(check: Check): Check {
  return (v, p) => {
    if (!isRecord(v)) return `${p} is ${kindOf(v)}, expected an object`;
    for (const [key, item] of Object.entries(v)) {
      const problem = check(item, at(p, key));
      if (problem) return problem;
    }
    return undefined;
  };
}

const alertRecord = object({
  id: string,
  fingerprint: string,
  secretFingerprints: mapOf(string),
  appliedDigest: string,
  pendingCreate: object({ runId: required(string), startedAt: required(string) }),
  notConverging: object({ desiredDigest: required(string), since: required(string), fields: required(stringList) }),
  adoptedAt: string,
  createdAt: string,
});

const project = object({
  lastReconciledAt: string,
  alertConfigs: required(mapOf(alertRecord)),
  singletons: mapOf(string),
});

const organization = object({ lastReconciledAt: string, singletons: mapOf(string) });

const document = object({
  updatedAt: required(string),
  lastRun: object({ runId: required(string), finishedAt: required(string), mode: required(string) }),
  projects: required(mapOf(project)),
  organizations: mapOf(organization),
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
  const problem = document(value, '$')?.replace(/^\$\./, '');
  return problem === undefined ? undefined : { kind: 'corrupt', detail: problem };
}
