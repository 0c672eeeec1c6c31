/**
 * Errors of the reconciler core and of the StateStore / ArchiveStore ports. One base class with a stable `code`;
 * none of them ever carries a secret value, a credential or a resolved secret reference.
 */

/** Base of every reconciler error. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The stored state could not be parsed. `version` lets a run overwrite it once it has recovered ownership. */
export class StateCorruptError extends ReconcileError {
  override name = 'StateCorruptError';
  /** Version of the corrupt content (pass it to `write` to replace it), when the store knows it. */
  readonly version: string | null;

  constructor(message: string, version: string | null, options?: { cause?: unknown }) {
    super('STATE_CORRUPT', message, options);
    this.version = version;
  }
}

/**
 * How a run's warning (RunReport.warnings) about a corrupt state begins, the run's and the plan's: the handlers log it
 * on a line of its own (handlers/run-once.ts).
 */
export const STATE_WAS_CORRUPT = 'STATE WAS CORRUPT';

/**
 * The stored state was written by a newer version of this tool (a higher `formatVersion`): it is neither read nor
 * overwritten, so a rollback of the deployment cannot destroy what the newer version recorded.
 */
export class StateTooNewError extends ReconcileError {
  override name = 'StateTooNewError';
  readonly formatVersion: number;

  constructor(location: string, formatVersion: number, supported: number) {
    super(
      'STATE_TOO_NEW',
      `state ${location} has formatVersion ${formatVersion}; this version reads formatVersion ${supported}: run or deploy the version of opsman-gitops that wrote it, or a later one (the state is left as it is)`,
    );
    this.formatVersion = formatVersion;
  }
}

/** The state changed since it was read (optimistic concurrency). */
export class StateConflictError extends ReconcileError {
  override name = 'StateConflictError';
  readonly expectedVersion: string | null;
  readonly actualVersion: string | null;

  constructor(expectedVersion: string | null, actualVersion: string | null) {
    super(
      'STATE_CONFLICT',
      `state changed since it was read (expected version ${expectedVersion ?? 'none'}, found ${actualVersion ?? 'none'})`,
    );
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/**
 * A lease runs 15 minutes at a time (renewed while its run lasts): one that expires more than a day ahead was written
 * by a host whose clock is wrong, or edited, and would block every run until then. Said, so nobody waits for it.
 */
const IMPLAUSIBLE_LEASE_MS = 24 * 60 * 60_000;

function implausibleExpiry(expiresAt: string, now: number): string {
  const ahead = Date.parse(expiresAt) - now;
  if (!(ahead > IMPLAUSIBLE_LEASE_MS)) return '';
  const days = Math.floor(ahead / (24 * 60 * 60_000));
  return `; that is ${days} day(s) ahead, longer than any lease lasts: the holder's clock was wrong or the lease was edited, and it will not expire in time; if no run is in progress, remove it (the CLI's unlock with that run id, or delete the lease object of the state store)`;
}

/** Who holds the lease; `unreadable` when it cannot be read and counts as held anyway (lease-document.ts says why). */
export interface LeaseHolder {
  owner: string;
  runId: string;
  expiresAt: string;
  /** What was found, until when it counts as held, and the way out (unreadableLeaseNotice). */
  unreadable?: string;
}

/** Another run holds the lease (or a lease this version cannot read still counts as held). */
export class LeaseHeldError extends ReconcileError {
  override name = 'LeaseHeldError';
  readonly holder: LeaseHolder;

  constructor(holder: LeaseHolder, waitedMs = 0, now = Date.now()) {
    super(
      'LEASE_HELD',
      (holder.unreadable === undefined
        ? `another run holds the lease: ${holder.owner} (run ${holder.runId}, expires ${holder.expiresAt})`
        : `another run may hold the lease: ${holder.unreadable}`) +
        (waitedMs > 0 ? `; waited ${waitedMs} ms` : '') +
        implausibleExpiry(holder.expiresAt, now),
    );
    this.holder = holder;
  }
}

/**
 * The run was stopped (its signal aborted: the CLI's Ctrl-C, SIGTERM or SIGHUP, a Lambda near its time limit) while it
 * waited for a lease another run holds: it never held the lease, so nothing was written. Code INTERRUPTED (the CLI
 * exits 130, as for any stopped run); `held` is the refusal it met, which a Lambda reports instead: a scheduled run
 * whose time ran out behind another run was skipped by that overlap, it did not fail.
 */
export class LeaseWaitInterruptedError extends ReconcileError {
  override name = 'LeaseWaitInterruptedError';
  /** The LEASE_HELD refusal the run was waiting out (holder and time waited). */
  readonly held: LeaseHeldError;

  /** `reason` says what stopped the run (`Ctrl-C (SIGINT)`). */
  constructor(held: LeaseHeldError, reason: string, waitedMs: number, now = Date.now()) {
    const { owner, runId, expiresAt, unreadable } = held.holder;
    const lock =
      unreadable === undefined
        ? `the lock held by ${owner} (run ${runId}, expires ${expiresAt})`
        : `a lock this version cannot read (${unreadable})`;
    super(
      'INTERRUPTED',
      `the run was stopped while waiting for ${lock} (${reason}` +
        (waitedMs > 0 ? `, after waiting ${waitedMs} ms` : '') +
        `): nothing was written${implausibleExpiry(expiresAt, now)}`,
    );
    this.held = held;
  }

  /** Who holds the lease. */
  get holder(): LeaseHolder {
    return this.held.holder;
  }
}

/** A forced unlock named a run that does not hold the lease: nothing was removed. */
export class LeaseMismatchError extends ReconcileError {
  override name = 'LeaseMismatchError';

  constructor(runId: string, holder: { owner: string; runId: string; expiresAt: string }) {
    super(
      'LEASE_MISMATCH',
      `the lock is held by run ${holder.runId} (${holder.owner}, expires ${holder.expiresAt}), not by run ${runId}: nothing removed`,
    );
  }
}

/** The lease was lost (expired and taken over, or removed) while we held it. */
export class LeaseLostError extends ReconcileError {
  override name = 'LeaseLostError';

  constructor(message: string) {
    super('LEASE_LOST', message);
  }
}

/** A saved plan was made from live state that has since moved. */
export class SavedPlanStaleError extends ReconcileError {
  override name = 'SavedPlanStaleError';
  /** Target keys (`project:<id>`, `organization:<id>`, `global:global`) whose live digest moved. */
  readonly targets: string[];
  /**
   * The same targets for people, `labels[i]` naming `targets[i]`: `payments-prod (project:<id>)`, with why when one
   * could not be re-read.
   */
  readonly labels: string[];

  constructor(targets: string[], names: string[]) {
    super(
      'SAVED_PLAN_STALE',
      `the saved plan is stale: Ops Manager changed since the plan was made, in ${names.join(', ')}; nothing was written: make a new plan`,
    );
    this.targets = targets;
    this.labels = names;
  }
}

/**
 * A saved plan was made against a version of the state that another run has since replaced (an apply recorded or
 * pruned owned configs, or just its run): the plan's changes were computed from records the state no longer holds.
 */
export class SavedPlanStateChangedError extends ReconcileError {
  override name = 'SavedPlanStateChangedError';
  /** The state version the plan was made against (null: no state then). */
  readonly plannedVersion: string | null;
  /** The state version read under the lease (null: no state now). */
  readonly currentVersion: string | null;

  constructor(
    plannedVersion: string | null,
    currentVersion: string | null,
    lastRun?: { runId: string; finishedAt: string },
  ) {
    const by =
      currentVersion === null
        ? ' (no state is stored now)'
        : lastRun === undefined
          ? ''
          : ` (last written by run ${lastRun.runId} at ${lastRun.finishedAt})`;
    super(
      'SAVED_PLAN_STATE_CHANGED',
      `the saved plan is stale: the state changed after the plan was made${by}, so the plan can no longer be applied; nothing was written: run plan again`,
    );
    this.plannedVersion = plannedVersion;
    this.currentVersion = currentVersion;
  }
}

/** A saved plan is not something this version can apply. */
export class SavedPlanInvalidError extends ReconcileError {
  override name = 'SavedPlanInvalidError';

  constructor(message: string) {
    super('SAVED_PLAN_INVALID', message);
  }
}

/** The desired state did not load or validate; `issues` are the loader's ValidationIssue values. */
export class DesiredStateInvalidError extends ReconcileError {
  override name = 'DesiredStateInvalidError';
  readonly issues: unknown[];

  constructor(issues: unknown[], summary: string) {
    super('DESIRED_STATE_INVALID', summary);
    this.issues = issues;
  }
}

/** A value about to be sent looks like a redaction mask: sending it would overwrite the real secret. */
export class MaskedValueError extends ReconcileError {
  override name = 'MaskedValueError';
  readonly path: string;

  constructor(path: string) {
    super('MASKED_VALUE', `refusing to send ${path}: its value looks like a redaction mask (****)`);
    this.path = path;
  }
}

/**
 * The desired state read does not match its snapshot manifest (desired/snapshot-manifest.ts), or a deployment that
 * requires one has none yet: an upload is in progress or was interrupted. Nothing is planned from such a state; a
 * later run (a retry, the manifest's own notification) reads the whole upload.
 */
export class DesiredStateInTransitError extends ReconcileError {
  override name = 'DesiredStateInTransitError';
  /** The files that differ (`templates.yaml: content differs`); empty when there is no manifest at all. */
  readonly mismatches: { path: string; problem: string }[];

  constructor(message: string, mismatches: { path: string; problem: string }[]) {
    super('DESIRED_STATE_IN_TRANSIT', message);
    this.mismatches = mismatches;
  }
}

/** The snapshot manifest is present but unusable (not JSON, wrong format): refused, never guessed at. */
export class SnapshotManifestInvalidError extends ReconcileError {
  override name = 'SnapshotManifestInvalidError';

  constructor(location: string, problem: string, options?: { cause?: unknown }) {
    super(
      'SNAPSHOT_MANIFEST_INVALID',
      `the snapshot manifest ${location} ${problem}; nothing was planned or written: upload the desired state again`,
      options,
    );
  }
}
