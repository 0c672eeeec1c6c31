/**
 * The lease document, as both stores write it (local `lease.json`, the S3 lease object) and read it back. A lease this
 * version cannot read is never taken as expired at once: it may be a newer version's lease (another shape) for a run
 * still writing, and taking it over would let two runs write at once. Nor may it lock forever: a lease torn or left
 * empty by a crash must stop blocking. So it counts as held until its modification time plus the lease lifetime (the
 * longest a run that wrote it could hold it without renewing), then it is taken over as an expired one.
 */
import { isRecord } from '../../shared/is-record.ts';

/** The `formatVersion` this code writes in lease documents; a lease without one was written before it was recorded (1). */
export const LEASE_FORMAT_VERSION = 1;

/** The members of a lease document that the stores use. */
export interface LeaseFields {
  owner: string;
  runId: string;
  expiresAt: string;
  /** S3 only (informational). */
  acquiredAt?: string;
  /** Local only: who holds it (the S3 lease uses the object's ETag instead). */
  token?: string;
}

/** What a lease's text holds: a lease this version reads, or why not (with the run id it names, when one is plain). */
export type LeaseReading =
  | { readable: true; lease: LeaseFields }
  | { readable: false; problem: string; runId?: string };

const RUN_ID = /^[0-9A-Za-z._:-]{1,128}$/;

/** The lease document to write: `fields` with this version's formatVersion first. */
export function leaseDocumentText(fields: LeaseFields): string {
  return JSON.stringify({ formatVersion: LEASE_FORMAT_VERSION, ...fields });
}

/**
 * Reads a lease document. `needsToken`: the local lease is identified by its token, so one without it is unreadable.
 * A `formatVersion` other than 1 (absent counts as 1) is another version's format: unreadable, whatever else it has.
 */
export function readLeaseDocument(text: string, needsToken: boolean): LeaseReading {
  if (text.trim() === '') return { readable: false, problem: 'it is empty (a write cut short by a crash?)' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { readable: false, problem: 'it is not JSON (a write cut short by a crash?)' };
  }
  if (!isRecord(value)) {
    return { readable: false, problem: 'it is not a JSON object' };
  }
  const v = value as Record<string, unknown>;
  // Named only when plain: it is shown in the way out (`unlock <runId>`), and it came from a file.
  const runId = typeof v.runId === 'string' && RUN_ID.test(v.runId) ? v.runId : undefined;
  const named = runId === undefined ? {} : { runId };
  if (v.formatVersion !== undefined && v.formatVersion !== LEASE_FORMAT_VERSION) {
    const found = JSON.stringify(v.formatVersion)?.slice(0, 40) ?? String(v.formatVersion);
    return {
      readable: false,
      problem: `it has formatVersion ${found}; this version reads formatVersion ${LEASE_FORMAT_VERSION} (a lease of another version of opsman-gitops?)`,
      ...named,
    };
  }
  const missing = ['owner', 'runId', 'expiresAt', ...(needsToken ? ['token'] : [])].filter(
    (k) => typeof v[k] !== 'string',
  );
  if (missing.length > 0) {
    return { readable: false, problem: `it has no ${missing.join(', ')} (not a lease this version wrote)`, ...named };
  }
  const expiresAt = v.expiresAt as string;
  if (Number.isNaN(Date.parse(expiresAt))) {
    return { readable: false, problem: 'its expiresAt is not a time', ...named };
  }
  const lease: LeaseFields = { owner: v.owner as string, runId: v.runId as string, expiresAt };
  if (typeof v.acquiredAt === 'string') lease.acquiredAt = v.acquiredAt;
  if (typeof v.token === 'string') lease.token = v.token;
  return { readable: true, lease };
}

/**
 * What LeaseHeldError says of a lease that cannot be read and still counts as held: where it is, what was found, until
 * when it counts, and the way out (`wayOut`: the store's, e.g. the CLI's unlock, or deleting the object).
 */
export function unreadableLeaseNotice(
  location: string,
  reading: { problem: string },
  heldUntil: string,
  wayOut: string,
): string {
  return `the lease ${location} cannot be read: ${reading.problem}. It counts as held until ${heldUntil} (its last modification plus the lease lifetime), as a run of another version may hold it; then it is taken over. If no run is in progress, ${wayOut}`;
}

/** When a lease that cannot be read stops counting as held: its modification time plus the lease lifetime. */
export function unreadableLeaseExpiry(modifiedMs: number, ttlMs: number): string {
  return new Date(modifiedMs + ttlMs).toISOString();
}
