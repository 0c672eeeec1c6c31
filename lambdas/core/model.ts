/**
 * The domain model shared by the whole pipeline: the loaded desired state, and the plan (the value `plan` produces and
 * `apply` consumes). Pure data: everything here serialises to JSON and holds no secret value.
 */
import type {
  AuditLogRotateConfig,
  Matcher,
  MetricThreshold,
  NotificationRequest,
  SecretNotificationField,
  ServerTypeName,
  Threshold,
} from '../opsman/types.ts';
import type { IgnorableField } from './desired/enums.ts';
import type { Weekday } from './zoned-time.ts';

/** Where a value came from: file path (relative to the desired-state root), 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/** How far a run (or a target) may go. Ordered from least to most: the stricter of run and target wins. */
export type Mode = 'observe' | 'plan' | 'apply';

/** Modes in order of strictness: a lower index is stricter. */
export const MODES: readonly Mode[] = ['observe', 'plan', 'apply'];

/** A reference to a secret: `<secret id>#<json key>`. The YAML holds these, never the value. */
export interface SecretRef {
  secretRef: string;
}

/** A notification in desired state: every secret-bearing field is a SecretRef, everything else as in the API. */
export type DesiredNotification = Omit<NotificationRequest, SecretNotificationField | 'role'> & {
  [F in SecretNotificationField]?: SecretRef;
};

/** One alert configuration in desired state, after template merge. `key` is its identity in git. */
export interface DesiredAlertConfig {
  key: string;
  eventTypeName: string;
  /** Defaults to true in desired state (a config you declare is one you want on), unlike the API's default. */
  enabled: boolean;
  matchers: Matcher[];
  metricThreshold?: MetricThreshold;
  threshold?: Threshold;
  notifications: DesiredNotification[];
  /**
   * Members left to Ops Manager once the config exists (ignore-fields.ts): sent as desired on create, as live on every
   * later write, and never planned, reported as drift or fought over. Absent when the entry lists none.
   */
  ignoreFields?: IgnorableField[];
  /**
   * Keys this config was known by before (`renamedFrom`, newest first or in any order): when the config has no record
   * of its own and one of these keys, no longer declared, owns a live config, that config is this key's from now on
   * and any edit made with the rename is an update of it, not a delete and a create. Absent when the entry lists none.
   */
  renamedFrom?: string[];
  /** The template it came from, when it was merged in from one. */
  template?: string;
  source: SourceLocation;
  /**
   * Where each secret reference is written (the position of its `secretRef` string), by `notifications[<index>].<field>`
   * (list index, not identity): what a secret that does not resolve at plan time points at. Absent without secrets.
   */
  secretSources?: Record<string, SourceLocation>;
}

/** Audit-log rotation expectation of a project: verified every run, written only with `enforce`. */
export interface DesiredAuditLogRotation extends AuditLogRotateConfig {
  enforce: boolean;
}

/** A project (group) target. */
export interface DesiredProject {
  name: string;
  projectId: string;
  /** The owning organization: needed to check TEAM notifications (GET /orgs/{orgId}/teams/{teamId}). */
  orgId?: string;
  mode?: Mode;
  defaultServerType?: ServerTypeName;
  auditLogRotation?: DesiredAuditLogRotation;
  alertConfigs: DesiredAlertConfig[];
  /** Delete owned alert configs that left git. Off unless the project says so. */
  prune: boolean;
  /** Keys never deleted, whatever prune says. */
  protect: string[];
  /**
   * Keys let go of (spec.release): an owned config of such a key is released (its state record forgotten, the config
   * left in Ops Manager as it is) instead of deleted. None of them is a declared key (the loader refuses that).
   */
  release: string[];
  source: SourceLocation;
}

/** An organization target. */
export interface DesiredOrganization {
  name: string;
  orgId: string;
  mode?: Mode;
  defaultServerType?: ServerTypeName;
  source: SourceLocation;
}

/** Run-wide settings (the single Settings document, or the defaults). */
export interface Settings {
  mode: Mode;
  prune: { maxDeletes: number; allowEmpty: boolean };
  archive: { versionManifest: boolean; usage: boolean };
  versionManifest?: {
    /** The manifest to upload when Ops Manager's differs: its path under the desired-state root and its exact text. */
    pin?: { path: string; text: string; sha256: string };
  };
  /** Change windows (Argo CD's sync windows), in file order; absent when there are none. */
  changeWindows?: ChangeWindow[];
}

/**
 * A change window: absolute (`from`/`until`, RFC 3339 instants) or weekly (`days`, `start`/`end` `HH:MM` on the wall
 * clock of `timeZone`; `end <= start` runs past midnight). `deny` holds the targets it matches while open; `allow`
 * holds them while none of the allow windows matching them is open. `projects` limits it to those projects.
 */
export interface ChangeWindow {
  name: string;
  kind: 'allow' | 'deny';
  from?: string;
  until?: string;
  days?: Weekday[];
  start?: string;
  end?: string;
  /** IANA time zone of a weekly window; set (default Etc/UTC) by the loader. */
  timeZone?: string;
  projects?: string[];
}

/** The time zone of a weekly change window that names none. */
export const DEFAULT_WINDOW_TIME_ZONE = 'Etc/UTC';

/** Why a target is not written this run: the windows holding it, and when the hold ends (ISO) when computable. */
export interface WindowHold {
  kind: 'allow' | 'deny';
  /** The open deny windows, or the allow windows none of which is open. */
  windows: string[];
  until?: string;
}

/** Default Settings when no Settings document exists: safe (plan only, no deletes beyond 5, no empty prune). */
export const DEFAULT_SETTINGS: Settings = {
  mode: 'plan',
  prune: { maxDeletes: 5, allowEmpty: false },
  archive: { versionManifest: true, usage: true },
};

/** One file the desired state was read from: what a plan says it came from. */
export interface DesiredFileInfo {
  path: string;
  sha256: string;
  /** S3 ETag or version id, when the source has one. */
  version?: string;
}

/** The whole loaded, validated desired state. */
export interface DesiredState {
  projects: DesiredProject[];
  organizations: DesiredOrganization[];
  settings: Settings;
  files: DesiredFileInfo[];
  /** sha256 over the sorted file digests: identifies the desired-state revision. */
  digest: string;
}

/** Kinds of object the reconciler manages. */
export type ChangeKind = 'alertConfig' | 'defaultServerType' | 'auditLogRotation' | 'versionManifest';

/**
 * What a change does. `before`/`after` per action:
 * - create: before absent; after = desired (secret fields as SecretRef, never values).
 * - update: before = normalised live (secrets as '(secret)'); after = desired. Applied with a full PUT.
 * - enable / disable: only `enabled` differs; applied with PATCH.
 * - delete: before = normalised live; after absent. Only for owned objects, only when prune allows.
 * - release: an owned alert config whose key the project lists in `spec.release`: nothing is written to Ops Manager;
 *   apply forgets its state record (pending-create marker, non-convergence guard and drift streak with it), so the
 *   config is unmanaged from the next run. before = normalised live (absent when only a record is left: a pending
 *   create's marker, or a config gone from Ops Manager); after absent; `id` the live config's, when there is one.
 * - adopt: an unowned live object equal to desired in every non-secret field; id recorded, secrets re-sent if needed.
 *   With `movedFrom`, a renamed key: the object was owned by a key that left git; its record moves to the new key
 *   instead of a delete and a create. An update, enable or disable may carry `movedFrom` too: a key renamed with
 *   `renamedFrom` and edited in the same commit (explicit-renames.ts), whose write moves the record.
 * - noop: before = after (omitted). Listed so reports can count what is in sync.
 * - blocked: nothing is written; `reason` says why and what unblocks it.
 * - drift: live differs from desired but this run may not correct it (observe mode, or an expectation not enforced).
 */
export type ChangeAction =
  | 'create'
  | 'update'
  | 'enable'
  | 'disable'
  | 'delete'
  | 'release'
  | 'adopt'
  | 'noop'
  | 'blocked'
  | 'drift';

/** Order in which actions are listed and applied within a target (deletes last: after every create/update). */
export const ACTION_ORDER: readonly ChangeAction[] = [
  'blocked',
  'drift',
  'adopt',
  'create',
  'update',
  'enable',
  'disable',
  'release',
  'delete',
  'noop',
];

/** A target: one project or organization, or the installation itself (version manifest). */
export interface TargetRef {
  type: 'project' | 'organization' | 'global';
  /** projectId, orgId, or 'global'. */
  id: string;
  name: string;
}

/** One field that differs. Secret fields carry no values: `secret: true` and a note instead. */
export interface FieldChange {
  /** JSON-pointer-like path inside the object, e.g. `notifications[WEBHOOK].webhookSecret`. */
  path: string;
  before?: unknown;
  after?: unknown;
  secret?: boolean;
  /** For secrets: what is known of the value, never the value (SecretNote). */
  note?: SecretNote;
  /**
   * For a field of a notification whose identity (type and address) several notifications share, on either side (two
   * GROUP notifications): which one, as a reader finds it in the YAML: its 1-based position in the desired
   * `notifications` list, or 0 for a live one that no desired notification pairs with. The `#2` of the path numbers
   * duplicates for pairing and secrets, not for reading.
   */
  item?: number;
  /**
   * A member of the live object this version does not model (a newer Ops Manager's field): the update's full PUT does
   * not send it, so Ops Manager may reset it. Its value is never copied into the plan (it may be a secret).
   */
  unmodelled?: true;
}

/**
 * What a plan says of a secret field: 'changed' (fingerprint differs), 'removed on live' (sent by us, gone from live),
 * 'added' (in the desired body, on neither live nor in state), 'set on live, not in desired', 'changed on live' (the
 * characters its redaction kept cannot be the desired value's), 'set' (no fingerprint to compare with: an adoption, or
 * a state that lost it; the write sends it).
 */
export type SecretNote =
  | 'changed'
  | 'removed on live'
  | 'added'
  | 'set on live, not in desired'
  | 'changed on live'
  | 'set';

/** Who changed a live object, from the project's audit events. */
export interface DriftAttribution {
  eventTypeName: string;
  created: string;
  /** username (else userId) when a user did it, publicKey (else apiKeyId) when an API key did; 'unknown' otherwise. */
  actor: string;
  actorType: 'user' | 'apiKey' | 'unknown';
  remoteAddress?: string;
  eventId: string;
  /**
   * Made with this tool's own API key, after its last complete run of the target and when no one else's event
   * explains the drift: the key used by hand, by another installation, or by a run that did not finish.
   */
  viaOwnKey?: true;
  /**
   * The event named the API key by its `apiKeyId` alone (no `publicKey`). This tool knows its own key by its public
   * key only, so it cannot tell whether this was its own write: it may be.
   */
  keyIdOnly?: true;
}

/** One actor of an update fight, as drift attribution named it. */
export interface FightActor {
  actor: string;
  actorType: 'user' | 'apiKey';
  /** This tool's own API key, used outside its runs (by hand, or by another installation sharing the key). */
  viaOwnKey?: true;
}

/**
 * An update fight (fight-notice.ts): something else keeps changing an object this tool manages, and each apply puts it
 * back. Names and paths only, never a value.
 */
export interface FightNotice {
  /** Consecutive runs that found the object changed outside this tool, this one included; at least FIGHT_RUNS. */
  runs: number;
  /** When the first of those runs began. */
  since: string;
  /** Who changed it on every one of those runs (may be empty when `fields` carries the pattern). */
  actors: FightActor[];
  /** Field paths that differed on every one of those runs (may be empty when `actors` carries the pattern). */
  fields: string[];
}

/** One entry of the plan. */
export interface Change {
  target: TargetRef;
  kind: ChangeKind;
  /** Alert key, or the singleton's name ('defaultServerType', 'auditLogRotation', 'versionManifest'). */
  key: string;
  action: ChangeAction;
  /** Ops Manager id of the object acted on (update, enable, disable, delete, adopt). */
  id?: string;
  before?: unknown;
  after?: unknown;
  fields: FieldChange[];
  /** Human explanation. It never drives behaviour. */
  reason: string;
  /**
   * Set when the live object changed since our last apply (drift), with who did it when known, and `fight` when this
   * is the FIGHT_RUNS-th (or later) consecutive run to find it changed again after this tool reverted it.
   */
  drift?: {
    detected: true;
    attribution?: DriftAttribution[];
    /**
     * Why `attribution` is absent, in a few words (attribution.ts): the events read failed (with its code or HTTP
     * status, never the server's text), no event of the object in the window, only this tool's own writes. Added
     * within format 2; absent in plans of earlier versions.
     */
    unattributed?: string;
    fight?: FightNotice;
  };
  /**
   * The key that left git and owned this object; its record moves to `key` (a renamed key). On an adopt, or on an
   * update, enable or disable of a key renamed with `renamedFrom`; kept on the drift observe mode makes of either.
   */
  movedFrom?: string;
  /**
   * alertConfig only: the AlertTemplate the declared config was merged in from, and where its entry is written, so that
   * a template edit reads as one in every project it changes. Added within format 2.
   */
  template?: ChangeTemplate;
}

/** The template of a change's declared alert config (`Change.template`). */
export interface ChangeTemplate {
  name: string;
  file: string;
  line: number;
}

/** A target that could not be planned or applied at all (read failed, 500, lease lost...). */
export interface TargetFailure {
  target: TargetRef;
  phase: 'read' | 'plan' | 'apply' | 'verify';
  message: string;
  code?: string;
  /** The HTTP status of Ops Manager's error answer, when the failure is one (404 for a project gone, 403, 409...). */
  httpStatus?: number;
}

/**
 * The `formatVersion` of the plan (and of the JSON report and saved plan built on it). Fields may be added within a
 * version; removing or renaming one, or a new action or change kind, makes the next version (saved-plan.ts refuses it).
 *
 * 2: the `release` action (spec.release) and with it `summary.planned.release`. Added while it was 1 (additions, which
 * a version allows): `notes`, a field's `unmodelled` marker, `drift.fight`. Added while it is 2: `drift.unattributed`,
 * an attribution's `keyIdOnly`. README "Plan format 2" says it for users.
 */
export const PLAN_FORMAT_VERSION = 2;

/** The plan: a plain, serialisable value. Deterministic order: target, kind, action order, key. */
export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  runId: string;
  createdAt: string;
  mode: Mode;
  desired: { digest: string; files: DesiredFileInfo[] };
  /** Per target, a digest of the normalised live state the plan was made from: a saved plan is refused when it moved. */
  liveDigests: Record<string, string>;
  /**
   * The version of the stored state (`StateStore.read`) the plan was made against; null when there was none. A saved
   * plan is refused when the state was written since (another run applied or pruned). Absent only in plans made by
   * earlier versions (and in archive runs' empty plans); a saved plan without it is refused.
   */
  stateVersion?: string | null;
  /**
   * The project ids the plan was limited to (`--project`, the manual event's "projects"), sorted; absent when it covers
   * every desired target. A partial plan plans no organization and no version manifest, and its apply forgets nothing
   * of the targets it did not plan.
   */
  projects?: string[];
  changes: Change[];
  failures: TargetFailure[];
  /** Per target key (`project:<id>`): the effective mode (stricter of run cap and target mode). Apply writes only to
   * targets whose mode is 'apply'. Absent in older plans: then the plan's own `mode` applies to every target. */
  targetModes?: Record<string, Mode>;
  /** Per target key: which live components the digest covers (`alertConfigs`, `defaultServerType`, ...). */
  liveReads?: Record<string, string[]>;
  /** Live objects nobody owns (Ops Manager defaults, other tools): reported, never touched. */
  unmanaged?: UnmanagedObject[];
  /** Loud run-wide notices (corrupt state recovered, ...). */
  warnings?: string[];
  /**
   * Quiet notices that ask for nothing (a `spec.release` entry for a key this state does not own: nothing to release,
   * as a Terraform `removed` block left in place). Absent when there are none.
   */
  notes?: string[];
  /**
   * The Settings' change windows when the plan was made (absent when none). An apply of a saved plan evaluates the
   * windows of the desired state as it is when its writes start (saved-plan-windows.ts), these only when it cannot be
   * read again; in an apply's report, the windows that were evaluated.
   */
  changeWindows?: ChangeWindow[];
  /** Per target key: the window hold (at a plan's start; when the writes start in an apply's report). */
  windowHolds?: Record<string, WindowHold>;
}

/**
 * Every top-level member of a Plan this version writes (the type checker keeps the list complete and exact). A saved
 * plan with any other member was written by another version: it is refused, never applied with the member ignored.
 */
export const PLAN_FIELDS: readonly (keyof Plan)[] = Object.keys({
  formatVersion: true,
  runId: true,
  createdAt: true,
  mode: true,
  desired: true,
  liveDigests: true,
  stateVersion: true,
  projects: true,
  changes: true,
  failures: true,
  targetModes: true,
  changeWindows: true,
  windowHolds: true,
  liveReads: true,
  unmanaged: true,
  warnings: true,
  notes: true,
} satisfies Record<keyof Plan, true>) as (keyof Plan)[];

/** A live object the reconciler does not own and leaves alone. */
export interface UnmanagedObject {
  target: TargetRef;
  kind: ChangeKind;
  id: string;
  /** One-line description, e.g. `HOST_DOWN (enabled)`. */
  summary: string;
}

/** The key of a target in `liveDigests`, `targetModes`, `liveReads`: `project:<id>`, `organization:<id>`, `global:global`. */
export function targetKey(target: TargetRef): string {
  return `${target.type}:${target.id}`;
}

/** Counts of a plan, by action. */
export type PlanSummary = Record<ChangeAction, number>;

/** The result of applying one change. */
export interface ChangeResult {
  change: Change;
  status: 'applied' | 'skipped' | 'failed' | 'not-converging';
  /** New id for creates. */
  id?: string;
  message?: string;
  /** A failed change: the stable code of its error when it has one (OPSMAN_API_ERROR, SECRET_REF_REFUSED...). */
  code?: string;
  /** A failed change: the HTTP status of Ops Manager's error answer, when it failed on one (not `status` above). */
  httpStatus?: number;
  durationMs: number;
}

/** The report of a whole run, written through the ArchiveStore and returned by the handlers. */
export interface RunReport {
  /** The report's own format (same rules as the plan's): a reader of stored reports can tell one it does not know. */
  formatVersion: typeof PLAN_FORMAT_VERSION;
  runId: string;
  startedAt: string;
  finishedAt: string;
  mode: Mode;
  plan: Plan;
  results: ChangeResult[];
  failures: TargetFailure[];
  summary: {
    planned: PlanSummary;
    applied: number;
    failed: number;
    drift: number;
    blocked: number;
    targetsFailed: number;
  };
  apiCalls: { total: number; byEndpoint: Record<string, number> };
  durationsMs: Record<string, number>;
  /** The command that ran (plan, apply, observe, archive). */
  command?: string;
  /** Loud run-wide notices (corrupt state recovered, lease taken over, ...). */
  warnings?: string[];
  /** What the archive command stored. */
  archive?: ArchiveSummary;
  /** Where the report itself was written (ArchiveStore location), when it was. */
  reportLocation?: string;
  /** Whether the desired state came from the desired-state cache ('hit'), was parsed ('miss'), or no cache was set. */
  desiredCache?: 'hit' | 'miss' | 'off';
  /** Set when the run's signal stopped an apply: why, and how many planned writes were not started. */
  interrupted?: { reason: string; notStarted: number };
  /**
   * An apply's targets whose planned writes a change window held (their mode would have written them): the hold, and
   * how many writes were not made. Absent when none (and with --ignore-windows).
   */
  heldByWindows?: (WindowHold & { target: TargetRef; writes: number })[];
  /**
   * An apply that lifted change windows: the override, as its caller names it (`--ignore-windows`, `manual event
   * "ignoreWindows": true`). Set even when no window held anything (each target written despite one has its
   * `CHANGE WINDOW IGNORED` warning). Absent otherwise.
   */
  windowsIgnoredBy?: string;
}

/** What an archive run stored. */
export interface ArchiveSummary {
  /**
   * The version manifest: `changed` when its content was new (stored and indexed); `restored: true` (absent otherwise)
   * when it was known but its copy under `manifests/sha256/` was lost or damaged and was written again; `previous`
   * (only then) when it was known but is not the manifest the last archive found: the sha256 `latest.json` named
   * before this run (Ops Manager went back to a manifest seen before).
   */
  manifest?: { sha256: string; key: string; changed: boolean; restored?: true; previous?: string; location: string };
  /**
   * Keys written (the previous month's host assignments too when this run closed it); `projects`: entries in this
   * month's host assignments document (carried-over ones included).
   */
  usage?: { month: string; keys: string[]; projects?: number };
  /** The parts Settings.archive turns off (`versionManifest`, `usage`), in that order; absent when neither is. */
  off?: ('versionManifest' | 'usage')[];
  errors: string[];
  /**
   * The parts this run did not store, or stored without some of their reads (`version manifest`, `usage <month>:
   * physical hosts`, `usage <month>: host assignments`, `usage <month>: host assignments (closing the month)`), in that order; absent when none.
   * Set where each error arises, so a reader never has to recognise a part from its error's wording.
   */
  incomplete?: string[];
  /**
   * With errors, when the run could classify them (RunDependencies.isRetryable): true when every error it met is one a
   * later attempt can get past (S3 or Ops Manager throttled or unavailable), false when any is not or a failure came
   * from no error (a stored document unusable).
   */
  retryable?: boolean;
}
