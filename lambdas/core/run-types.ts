/**
 * The contract of one run of the pipeline: what the CLI and the Lambda handlers pass in, and what they get back.
 * Implemented by `runReconcile` in run.ts.
 */
import type { SnapshotPolicy } from './desired/snapshot-check.ts';
import type { Mode, Plan } from './model.ts';
import type {
  ArchiveStore,
  Clock,
  DesiredStateCache,
  DesiredStateSource,
  OpsManagerApi,
  Reporter,
  SecretResolver,
  StateStore,
} from './ports.ts';

/** What a run does: plan only, plan then apply, observe drift only, or archive the manifest and usage. */
export type RunCommand = 'plan' | 'apply' | 'observe' | 'archive';

/** One run's request. */
export interface RunRequest {
  command: RunCommand;
  /** Run-wide mode cap (`--mode`); the stricter of this and each target's mode wins. */
  mode?: Mode;
  /** Only these project ids (and no organizations) when set. */
  projects?: string[];
  /**
   * What the caller's user calls that selection (`--project`, `the event's "projects"`), quoted in the UNKNOWN_PROJECT
   * refusal so that it points at what to correct. Unset: the refusal names no option.
   */
  projectsField?: string;
  runId: string;
  /** Who runs: `cli:<user>@<host>` or `lambda:<function>/<request id>`; recorded in the lease. */
  owner: string;
  /** Apply this saved plan instead of planning; refused if live state moved since it was made. */
  savedPlan?: Plan;
  /** Overrides of the safety gates, each named in the refusal that needs it. */
  overrides?: { maxDeletes?: number; allowEmpty?: boolean };
  /**
   * Write targets that a change window holds (Argo CD's manual-sync override; the CLI's `--ignore-windows`). The
   * report's warnings name each target written despite its window. Scheduled and S3-triggered Lambda runs never set
   * it; a manual invocation's `"ignoreWindows": true` does (handlers/events.ts).
   */
  ignoreWindows?: boolean;
  /**
   * What the caller's user calls that override (`--ignore-windows`, `manual event "ignoreWindows": true`), quoted in
   * each `CHANGE WINDOW IGNORED` warning and recorded in the report (RunReport.windowsIgnoredBy), so that a write made
   * during a freeze says who lifted it. Unset: `--ignore-windows`.
   */
  ignoreWindowsBy?: string;
  /** Wait up to this long for a held lease before failing (0: fail fast). */
  leaseWaitMs?: number;
  /**
   * A `plan` run whose plan is to be applied (the CLI's `plan --out`, the plan an interactive apply asks about): as in
   * an apply's own plan, an in-sync alert config whose record fell behind carries its desired body, so that applying
   * the plan brings the record up to date (record-refresh.ts). A plain plan skips that check (one digest per config).
   */
  planForApply?: boolean;
  /**
   * A graceful stop (interrupt.ts): once aborted, no new target is planned and no new write starts; writes in flight
   * finish, the state is saved and the lease released. Its reason, when a string, is quoted in the report.
   */
  signal?: AbortSignal;
  /**
   * Called once an apply holds the lease, before it reads the state: until then a stop has no lock to release and
   * nothing to write (the CLI words its Ctrl-C notice by it). Never called by another command.
   */
  onLeaseHeld?: () => void;
  /**
   * Archive only: the caller made the archive's reads and writes stop on `signal` (the CLI's Ctrl-C: an API view and
   * an archive store bound to it). Once `signal` is aborted, the parts not archived are then the stop's doing, and the
   * report the run stores records it (`interrupted`). Unset (the Lambda, whose archive does not stop on its deadline
   * signal): an archive is never reported interrupted.
   */
  archiveStopsOnSignal?: boolean;
}

/** Everything a run talks to. */
export interface RunDependencies {
  source: DesiredStateSource;
  api: OpsManagerApi;
  secrets: SecretResolver;
  state: StateStore;
  archive: ArchiveStore;
  clock: Clock;
  reporter: Reporter;
  /** Key of the HMAC-SHA-256 fingerprints kept in state. Never stored beside the state in clear. */
  fingerprintKey: Uint8Array;
  /**
   * The Ops Manager's Public API base URL, as configured: recorded in the state by apply, and a state last applied
   * against another one is warned about (state-origin.ts). Absent: neither.
   */
  opsManagerUrl?: string;
  /** The public key this run acts as: its own audit events are never named as the author of a drift. */
  actorPublicKey?: string;
  /** API calls made so far, by endpoint (`GET /groups/{groupId}/alertConfigs`): from the client's observer. */
  apiCalls?: () => { total: number; byEndpoint: Record<string, number> };
  /** Cache of validated desired states keyed by content hash; absent: every run parses (RunReport.desiredCache 'off'). */
  desiredCache?: DesiredStateCache;
  /**
   * Whether the desired state must come with a snapshot manifest (desired/snapshot-check.ts). Default `optional`: a
   * manifest present is checked, none is fine; the Lambda passes `required` (DESIRED_STATE_SNAPSHOT).
   */
  desiredSnapshot?: SnapshotPolicy;
  /**
   * Whether a later attempt can get past an error (the handlers' classifyError): with it, an archive run tells whether
   * all its failures could pass on a retry (ArchiveSummary.retryable).
   */
  isRetryable?: (error: unknown) => boolean;
}
