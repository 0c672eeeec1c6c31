/**
 * The ports: how the pure core talks to the world. Each has a real implementation (S3, Secrets Manager, undici) and a
 * local one (filesystem, env/secrets file) in lambdas/adapters/ or lambdas/opsman/.
 */
import type {
  AlertConfig,
  AlertConfigRequest,
  AuditLogRotateConfig,
  EventQuery,
  HostAssignment,
  ListLimit,
  OpsManagerEvent,
  PhysicalHost,
  RawJsonDocument,
  ServerType,
  Team,
} from '../opsman/types.ts';

/** One desired-state file as listed: path relative to the root, with `/` separators. */
export interface DesiredFileRef {
  path: string;
  size: number;
  /** S3 ETag or version id; absent for local files. */
  version?: string;
  /**
   * A validator of the file's bytes, when the source can vouch for one: the same path with the same tag has the same
   * bytes (S3: ETag, size and last-modified time; a directory: device, inode, size and nanosecond mtime and ctime of a
   * file unchanged for a few seconds). With a tag on every file, a desired-state cache hit needs no file read at all
   * (cache-tags.ts). Absent when the source cannot be sure; the loader then reads and hashes the file.
   */
  contentTag?: string;
  /**
   * Set when the source found an entry named like a desired-state file that it cannot serve as one (a link to a missing
   * file or out of the root, a FIFO or device, a name that is not UTF-8), or one that may hold such files it will not
   * read (a link to a directory outside the root, whatever its name): why, as a sentence. The loader reports it as an
   * issue of that entry and never reads it, so no file is ever left out of the desired state silently.
   */
  problem?: string;
}

/** Lists and reads the YAML documents (a directory, or an S3 prefix). */
export interface DesiredStateSource {
  /** Human description for reports: `dir:desired-state/` or `s3://bucket/prefix/`. */
  describe(): string;
  /** Every `*.yaml`/`*.yml` file under the root, and every entry with a `problem`, sorted by path. */
  list(): Promise<DesiredFileRef[]>;
  /**
   * The bytes of one file (a YAML file, or a file it references such as a pinned manifest). A file that is not there
   * throws an error with `status: 404` or `code: 'NOT_FOUND'` (or `'ENOENT'`), so that a file deleted between the
   * listing and the read (an upload's prune) is told apart from one that cannot be read (access denied).
   * With `maxBytes`, a file found larger than that (replaced by a bigger one since the listing) need not be read: the
   * result then has its whole `size` and `bytes` cut short (possibly empty), so that a huge file is refused, not loaded.
   */
  read(path: string, options?: { maxBytes?: number }): Promise<{ bytes: Uint8Array; version?: string; size?: number }>;
  /**
   * The bytes of one file, or undefined when there is no file at `path` (S3 404, ENOENT): for files that may be absent,
   * such as the snapshot manifest (desired/snapshot-manifest.ts). Any other failure (access denied, a network error)
   * rejects, so that "absent" is never guessed from an error. `maxBytes` as for {@link read}.
   */
  readIfPresent(
    path: string,
    options?: { maxBytes?: number },
  ): Promise<{ bytes: Uint8Array; version?: string; size?: number } | undefined>;
}

/**
 * Stores validated desired states by content key (see lambdas/core/desired/cache.ts): a run whose desired-state bytes
 * are unchanged skips parsing and validation. Entries are opaque text the loader checks before trusting; a store may
 * lose or evict any entry at any time. Errors are allowed: the loader treats a throwing store as a miss.
 */
export interface DesiredStateCache {
  /** The entry stored under `key` (64 lowercase hex), or undefined when there is none. */
  get(key: string): Promise<string | undefined>;
  /** Stores `text` under `key`, replacing any entry there. */
  put(key: string, text: string): Promise<void>;
  /**
   * Optional: stores the concatenation of `pieces` under `key`, without holding the whole text at once (an entry of
   * 1,000 x 20 alert configs is about 7 MB). Stores that leave it out get `put` with the pieces joined.
   */
  putPieces?(key: string, pieces: Iterable<string>): Promise<void>;
}

/** The reads and writes of Ops Manager the core needs. Implemented by the client in lambdas/opsman/. */
export interface OpsManagerApi {
  listAlertConfigs(groupId: string): Promise<AlertConfig[]>;
  getAlertConfig(groupId: string, alertConfigId: string): Promise<AlertConfig>;
  /**
   * The created config, or null when the server answered success without a body: the config exists, and only a
   * re-read of the list can say which one it is (the same as an answer without an id).
   */
  createAlertConfig(groupId: string, body: AlertConfigRequest): Promise<AlertConfig | null>;
  /** Full replacement (PUT): the body must be complete, `enabled` included. Null: success without a body. */
  updateAlertConfig(groupId: string, alertConfigId: string, body: AlertConfigRequest): Promise<AlertConfig | null>;
  /** PATCH with `{enabled}` only. Null: success without a body (verification then re-reads). */
  setAlertConfigEnabled(groupId: string, alertConfigId: string, enabled: boolean): Promise<AlertConfig | null>;
  deleteAlertConfig(groupId: string, alertConfigId: string): Promise<void>;
  /** null when the project has none set (empty body). */
  getProjectDefaultServerType(groupId: string): Promise<ServerType | null>;
  setProjectDefaultServerType(groupId: string, serverType: ServerType): Promise<void>;
  getOrgDefaultServerType(orgId: string): Promise<ServerType | null>;
  setOrgDefaultServerType(orgId: string, serverType: ServerType): Promise<void>;
  getAuditLogRotateConfig(groupId: string): Promise<AuditLogRotateConfig>;
  setAuditLogRotateConfig(groupId: string, config: AuditLogRotateConfig): Promise<void>;
  getTeam(orgId: string, teamId: string): Promise<Team>;
  /** Every page, newest first; with `limit`, only the newest `limit.maxItems` events (no page past them is read). */
  listProjectEvents(groupId: string, query?: EventQuery, limit?: ListLimit): Promise<OpsManagerEvent[]>;
  listOrgEvents(orgId: string, query?: EventQuery, limit?: ListLimit): Promise<OpsManagerEvent[]>;
  /** The manifest exactly as served (GET /unauth/versionManifest). */
  getVersionManifest(): Promise<RawJsonDocument>;
  /** Upload the manifest text unaltered. */
  putVersionManifest(text: string): Promise<RawJsonDocument>;
  listPhysicalHosts(): Promise<PhysicalHost[]>;
  /** Dates are ISO 8601 dates (YYYY-MM-DD). */
  listProjectHostAssignments(groupId: string, startDate: string, endDate: string): Promise<HostAssignment[]>;
  listOrgHostAssignments(orgId: string, startDate: string, endDate: string): Promise<HostAssignment[]>;
  /**
   * Optional: the same API, with every request made through it stopped as soon as `signal` aborts, wherever it is
   * (waiting for a slot, a backoff or an answer). The reconciler plans through such a view, so a stopped run does not
   * wait for reads that may never be answered. Without it, a stopped run waits for the requests in flight.
   */
  withSignal?(signal: AbortSignal): OpsManagerApi;
  /**
   * Optional: the same API, with every request made through it stopped once `signal` aborts only where it waits (for
   * a slot, or out a backoff before a retry: a 429's Retry-After), never on the wire. The reconciler writes through
   * such a view: a write in flight always gets its answer, a write not sent yet is not sent (OpsManagerAbortedError,
   * `sent` false unless an earlier attempt may have been applied). Without it, a stopped run waits out the backoffs.
   */
  withStopWaiting?(signal: AbortSignal): OpsManagerApi;
  /**
   * Optional: the same API, with every request made through it ended by `at`, wherever it is: no attempt or retry
   * starts at or past it and an attempt in flight is cut then (OpsManagerAbortedError giving `reason`, or
   * AmbiguousWriteError for a POST cut on the wire). Views made from it (withSignal, withStopWaiting) keep the limit.
   * A Lambda run goes through such a view, so that no request outlasts the time it needs to save its state.
   */
  withEndBy?(at: Date, reason: string): OpsManagerApi;
}

/** Resolves `<secret id>#<json key>` to its value. Throws SecretResolutionError (never containing the value). */
export interface SecretResolver {
  resolve(ref: string): Promise<string>;
}

/** What the state store persists: ownership and fingerprints. Never a secret in clear. */
export interface ReconcileState {
  formatVersion: 1;
  updatedAt: string;
  lastRun?: { runId: string; finishedAt: string; mode: string };
  /** Keyed by projectId, then alert key. */
  projects: Record<string, ProjectState>;
  /** Keyed by orgId: organizations' singletons (added by the reconciler; optional for older states). */
  organizations?: Record<string, OrganizationState>;
  /** The Ops Manager (Public API base URL) the last apply ran against (state-origin.ts); absent in older states. */
  opsManager?: { baseUrl: string };
  /** Names the fingerprint key the last apply used (fingerprint.ts `fingerprintKeyCheck`); absent in older states. */
  fingerprintKeyCheck?: string;
}

/** State of one organization target. */
export interface OrganizationState {
  lastReconciledAt?: string;
  /** Digest of each singleton value last applied or verified equal (`defaultServerType`): tells drift apart. */
  singletons?: Record<string, string>;
  /** Objects this tool reverted after a drift on consecutive applies (fight-streak.ts); absent in older states. */
  driftStreaks?: Record<string, DriftStreak>;
}

/** State of one project. */
export interface ProjectState {
  /** When this project was last reconciled successfully: the lower bound for drift attribution. */
  lastReconciledAt?: string;
  alertConfigs: Record<string, OwnedAlertConfig>;
  /** Digest of each singleton value last applied or verified equal (`defaultServerType`, `auditLogRotation`). */
  singletons?: Record<string, string>;
  /**
   * Objects this tool reverted after a drift on consecutive applies, by `streakKey` (`alertConfig:<key>`,
   * `defaultServerType`, `auditLogRotation`): only objects with a streak (fight-streak.ts); absent in older states.
   */
  driftStreaks?: Record<string, DriftStreak>;
}

/**
 * One object's run of consecutive applies that found it changed outside this tool and reverted it: the bookkeeping of
 * update-fight detection. Holds names of actors and field paths only, never a value.
 */
export interface DriftStreak {
  /** How many consecutive applies found the object drifted and reverted it (1 or more). */
  runs: number;
  /** When the first of those runs began (its plan's `createdAt`). */
  since: string;
  /** Actors drift attribution named on every one of those runs (`apiKey:<publicKey>`, `user:<name>`, `ownKey:<publicKey>`). */
  actors: string[];
  /** Field paths that differed on every one of those runs (`(deleted)` for an object deleted outside). */
  fields: string[];
}

/** One owned alert config: its id, and fingerprints of what we last applied. */
export interface OwnedAlertConfig {
  /** Absent while only a pending create exists. */
  id?: string;
  /** HMAC-SHA-256 of the full body last applied, secrets resolved (hex). */
  fingerprint?: string;
  /** HMAC-SHA-256 per secret field path, to say which secret changed without knowing its value. */
  secretFingerprints?: Record<string, string>;
  /**
   * Digest of the normalised non-secret body last applied: drift = live differs from it. Made without the members in
   * `ignoredFields`, when there are any (ignore-fields.ts).
   */
  appliedDigest?: string;
  /** The alert config's ignoreFields when it was last written: the members `appliedDigest` leaves out. */
  ignoredFields?: string[];
  /**
   * Set before a POST; cleared once the id is known. `desiredDigest` (textDigest of the desired body's canonical text,
   * absent in markers older releases saved) recognises the config that POST created late once its key has left git.
   */
  /**
   * Before a POST. `releasedIds`: configs the same plan released in this project, live before the create was planned:
   * never its late landing, though the tool's own key made them (late-creates.ts), so they are never deleted as one.
   */
  pendingCreate?: { runId: string; startedAt: string; desiredDigest?: string; releasedIds?: string[] };
  /** Set when a re-read after a write still differed: no rewrite until desiredDigest changes. */
  notConverging?: { desiredDigest: string; since: string; fields: string[] };
  adoptedAt?: string;
  createdAt?: string;
}

/** A held lease: the lock of a whole apply. */
export interface Lease {
  owner: string;
  runId: string;
  expiresAt: string;
  /** Opaque token the store needs to renew or release it (an ETag, a file inode...). */
  token: string;
}

/** Reads and writes state with optimistic concurrency, and holds the run lease. */
export interface StateStore {
  /** Throws StateCorruptError when the stored state cannot be parsed; never returns a partial state. */
  read(): Promise<{ state: ReconcileState | null; version: string | null }>;
  /** Writes when the stored version still equals `expectedVersion` (null: must not exist); throws StateConflictError. */
  write(state: ReconcileState, expectedVersion: string | null): Promise<string>;
  /** Takes the lease, or throws LeaseHeldError naming the holder. An expired lease is taken over. */
  acquireLease(request: { owner: string; runId: string; ttlMs: number }): Promise<Lease>;
  renewLease(lease: Lease, ttlMs: number): Promise<Lease>;
  releaseLease(lease: Lease): Promise<void>;
  /**
   * Throws LeaseLostError when `lease` is no longer the one stored (removed by `unlock`, taken over); changes nothing.
   * Optional: a store without it finds a lost lease only at its next renewal.
   */
  checkLease?(lease: Lease): Promise<void>;
}

/** Stores archive objects (manifests, usage snapshots, run reports). */
export interface ArchiveStore {
  describe(): string;
  /**
   * Writes `body` under `key`. With `ifAbsent`, an existing key is left alone and `created` is false. With `ifVersion`
   * (a version {@link getVersioned} returned), the key is replaced only while it still holds that version; otherwise it
   * is left alone and `created` is false.
   */
  put(
    key: string,
    body: string | Uint8Array,
    options?: { contentType?: string; ifAbsent?: boolean; ifVersion?: string },
  ): Promise<{ key: string; created: boolean; location: string }>;
  get(key: string): Promise<Uint8Array | null>;
  /**
   * Optional: the bytes under `key` and their version (S3: the ETag), for a conditional replace (`ifVersion`). Stores
   * without it cannot replace conditionally; callers then write unconditionally.
   */
  getVersioned?(key: string): Promise<{ bytes: Uint8Array; version: string } | null>;
  /**
   * Optional: writes the concatenation of `pieces` (as UTF-8) under `key`, replacing it, without holding the whole
   * text at once (a run report of 20,000 changes is tens of MB). Stores that cannot stream leave it out; callers then
   * encode the pieces and use `put`.
   */
  putPieces?(
    key: string,
    pieces: Iterable<string>,
    options?: { contentType?: string },
  ): Promise<{ key: string; created: boolean; location: string }>;
}

/** Time, injectable for tests. */
export interface Clock {
  now(): Date;
  sleep(ms: number): Promise<void>;
}

/** Progress and metrics for long runs (stderr locally, Powertools in Lambda). */
export interface Reporter {
  progress(message: string, fields?: Record<string, unknown>): void;
  metric(name: string, value: number, unit?: 'Count' | 'Milliseconds' | 'Seconds' | 'None'): void;
}

/** A request that has waited a while for Ops Manager's answer (the client's `stallAfterMs`, 15 s by default). */
export interface RequestStallEvent {
  method: string;
  pathTemplate: string;
  /** The URL path as sent, ids filled in (`/api/public/v1.0/groups/5e22.../alertConfigs`); never the query string. */
  path: string;
  /** How long it has waited for an answer so far. */
  waitedMs: number;
  /** Its deadline (the client's `retry.deadlineMs`): when it gives up, counted from when it was first sent. */
  deadlineMs: number;
}

/**
 * A request about to wait before its next attempt: what the last attempt got, and how long the wait is. Nothing
 * secret: a status and Ops Manager's error code, or a transport error's code, never a body or header.
 */
export interface RequestRetryEvent {
  method: string;
  pathTemplate: string;
  /** The URL path as sent, ids filled in; never the query string. */
  path: string;
  /** What the failed attempt got: `429 RATE_LIMITED`, `503 HTTP_503`, `no response (ECONNRESET)`. */
  got: string;
  /** Attempts made so far (the failed one included), and the most the client makes. */
  attempt: number;
  maxAttempts: number;
  /** How long it waits before the next attempt. */
  waitMs: number;
  /** True when the wait is the server's `Retry-After` (capped), false for the client's own backoff. */
  retryAfter: boolean;
}

/** An observer the API client reports every request to; the reconciler counts calls by endpoint with it. */
export interface RequestObserver {
  /**
   * Called once per request that reached Ops Manager (at least one attempt sent; `attempts` counts those sent). A
   * request refused before sending (the silence or credential verdict, a stop while it queued) is no API call.
   */
  onRequest(event: {
    method: string;
    pathTemplate: string;
    status: number | null;
    attempts: number;
    durationMs: number;
  }): void;
  /** Optional: called once per stall of a request still waiting for an answer (the CLI prints a notice). */
  onStall?(event: RequestStallEvent): void;
  /** Optional: called before each wait for a retry (the CLI prints a notice for a long one). */
  onRetryWait?(event: RequestRetryEvent): void;
}
