/**
 * Applies the changes of one target in plan order. Deletes of alert configs run only when no alert config write of the
 * same target failed before them; a lost lease stops the target at once.
 */

import { OpsManagerAbortedError } from '../opsman/errors.ts';
import type { ApplyContext } from './apply.ts';
import { type AlertApplyContext, applyAlertChange, dropPendingMarker } from './apply-alerts.ts';
import { applySingletonChange, recordSingleton } from './apply-singletons.ts';
import { errorCode, errorHttpStatus, errorMessage } from './concurrency.ts';
import { INTERRUPTED_MESSAGE } from './interrupt.ts';
import type { Change, ChangeResult, TargetFailure } from './model.ts';
import { confirmEcho, secretsNotKept, type WriteCheck } from './verify.ts';

/** The outcome of one target: a result per change, the writes to verify, and a failure that stopped it. */
export interface TargetApplyOutcome {
  results: ChangeResult[];
  written: Map<ChangeResult, WriteCheck>;
  failure?: TargetFailure;
  /** Writes applied whose answer was too large to read, one line each naming the change (settle-write.ts). */
  warnings: string[];
}

/** A run warning about one change: `payments-prod alertConfig "no-primary": update applied, but …`. */
function changeWarning(change: Change, warning: string): string {
  const name = change.key === change.kind ? change.kind : `${change.kind} "${change.key}"`;
  return `${change.target.name} ${name}: ${change.action} ${warning}`;
}

/** A result of `change`, timed from `started`. */
export function result(
  change: Change,
  status: ChangeResult['status'],
  started: number,
  extra: { id?: string; message?: string; code?: string; httpStatus?: number } = {},
): ChangeResult {
  const durationMs = Date.now() - started;
  // The id is part of the literal (one compact object per write, 20,000 of them in a first apply); same field order.
  const r: ChangeResult =
    extra.id === undefined ? { change, status, durationMs } : { change, status, durationMs, id: extra.id };
  if (extra.message !== undefined) r.message = extra.message;
  if (extra.code !== undefined) r.code = extra.code;
  if (extra.httpStatus !== undefined) r.httpStatus = extra.httpStatus;
  return r;
}

/**
 * The message and, when it has them, the stable code of the error a change failed with and the HTTP status of Ops
 * Manager's error answer.
 */
export function failedWith(error: unknown): { message: string; code?: string; httpStatus?: number } {
  const out: { message: string; code?: string; httpStatus?: number } = { message: errorMessage(error) };
  const code = errorCode(error);
  if (code !== undefined) out.code = code;
  const httpStatus = errorHttpStatus(error);
  if (httpStatus !== undefined) out.httpStatus = httpStatus;
  return out;
}

/**
 * Results of changes a run did not start: skipped with `message` (INTERRUPTED_MESSAGE unless told: a lost lease says
 * so). A create's pending marker, saved before the first POST, is dropped: nothing was sent, so the next run must not
 * look for a duplicate.
 */
export function notStarted(
  changes: readonly Change[],
  ctx: ApplyContext,
  message: string = INTERRUPTED_MESSAGE,
): ChangeResult[] {
  return changes.map((change) => {
    if (change.kind === 'alertConfig' && change.action === 'create') dropPendingMarker(ctx.state, change);
    return result(change, 'skipped', Date.now(), { message });
  });
}

/**
 * Why a project's alert config delete is held: `failed` are the alert config writes of the project that failed before
 * it, in the order they ran (at least one). Names the first by action and key (`not deleted: the release of "disk" in
 * this project failed`), so the reader looks at the write that failed, not for a create or update that never ran.
 */
export function heldAfterFailure(failed: readonly Change[]): string {
  const first = failed[0];
  if (first === undefined) return 'not deleted: an earlier write of this project failed';
  const others = failed.length - 1;
  const more = others === 0 ? '' : ` (and ${others} other write${others === 1 ? '' : 's'})`;
  return `not deleted: the ${first.action} of "${first.key}" in this project failed${more}`;
}

/** Applies one target's changes (already filtered to writes, in plan order); each body is built right before its write. */
export async function applyTarget(
  changes: Change[],
  ctx: ApplyContext,
  alertCtx: AlertApplyContext,
): Promise<TargetApplyOutcome> {
  const results: ChangeResult[] = [];
  const written = new Map<ChangeResult, WriteCheck>();
  const warnings: string[] = [];
  // Alert config writes of this target that failed: a delete after any of them is held, naming them.
  const alertFailed: Change[] = [];
  for (const [index, change] of changes.entries()) {
    const started = Date.now();
    if (ctx.signal?.aborted) {
      results.push(...notStarted(changes.slice(index), ctx));
      break;
    }
    if (change.kind === 'alertConfig' && change.action === 'delete' && alertFailed.length > 0) {
      results.push(result(change, 'skipped', started, { message: heldAfterFailure(alertFailed) }));
      continue;
    }
    try {
      await ctx.keepAlive();
    } catch (error) {
      results.push(result(change, 'failed', started, failedWith(error)));
      // Every change gets a result: the rest of this target was never sent (a create's pending marker is dropped).
      results.push(...notStarted(changes.slice(index + 1), ctx, `not started: ${errorMessage(error)}`));
      return {
        results,
        written,
        warnings,
        failure: {
          target: change.target,
          phase: 'apply',
          message: errorMessage(error),
          code: errorCode(error) ?? 'LEASE_LOST',
        },
      };
    }
    try {
      if (change.kind === 'alertConfig') {
        const out = await applyAlertChange(change, alertCtx);
        const r = result(change, 'applied', started, out);
        results.push(r);
        if (out.warning !== undefined) warnings.push(changeWarning(change, out.warning));
        // The echo is compared now and dropped: only whether it confirmed the write waits for verification.
        // An echo whose redacted secrets cannot be what was sent is not a confirmation: the re-read decides.
        if (out.wrote) {
          const response = out.response;
          const confirmed =
            response !== undefined &&
            confirmEcho(r, { response, desiredText: out.desiredText }) &&
            (await secretsNotKept(r, response, alertCtx.secrets)).length === 0;
          written.set(r, { echoConfirmed: confirmed });
        }
      } else {
        const warning = await applySingletonChange(change, ctx.api, ctx.readPin);
        recordSingleton(ctx.state, change);
        const r = result(change, 'applied', started, warning === undefined ? {} : { message: warning });
        results.push(r);
        if (warning !== undefined) warnings.push(changeWarning(change, warning));
        written.set(r, { echoConfirmed: false });
      }
    } catch (error) {
      // Stopped unsent by the run's signal (it waited for a slot or out a 429's Retry-After): not written, as a write
      // not started; the rest of the target follows at the next turn (the signal is aborted).
      if (error instanceof OpsManagerAbortedError && !error.sent && ctx.signal?.aborted) {
        results.push(...notStarted([change], ctx));
        continue;
      }
      if (change.kind === 'alertConfig') alertFailed.push(change);
      results.push(result(change, 'failed', started, failedWith(error)));
    }
  }
  return { results, written, warnings };
}
