/**
 * Convergence check right after a target's writes: one re-read of its alert list (and of each written singleton).
 * A written object that still differs is reported `not-converging` and is not rewritten until its desired state
 * changes (no flapping loop).
 */

import type { DesiredAlertBody } from './alert-body.ts';
import type { ApplyContext } from './apply.ts';
import type { AlertApplyContext } from './apply-alerts.ts';
import { verifySingleton } from './apply-singletons.ts';
import { errorCode, errorMessage } from './concurrency.ts';
import { diffAlert } from './diff.ts';
import type { ChangeResult, TargetFailure } from './model.ts';
import { normaliseDesired, normaliseLive } from './normalise.ts';
import { desiredIdentity } from './plan-alerts.ts';
import { resolveBodySecrets } from './resolve-secrets.ts';

/** What verification found beyond the per-result statuses it updates. */
export interface VerifyOutcome {
  failure?: TargetFailure;
}

async function guard(result: ChangeResult, ctx: ApplyContext, fields: string[]): Promise<void> {
  result.status = 'not-converging';
  result.message = `still differs after the write: ${fields.join(', ')}; not rewritten until its desired state changes`;
  const change = result.change;
  if (change.kind !== 'alertConfig') return;
  const record = ctx.state.projects[change.target.id]?.alertConfigs[change.key];
  const body = change.after as DesiredAlertBody;
  const resolved = await resolveBodySecrets(body, ctx.secrets);
  if (record === undefined || !resolved.ok) return;
  record.notConverging = {
    desiredDigest: desiredIdentity(ctx.fingerprintKey, body, resolved.values),
    since: ctx.clock.now().toISOString(),
    fields,
  };
}

/** Re-reads what `results` wrote and flags what did not converge. */
export async function verifyTarget(
  results: ChangeResult[],
  ctx: ApplyContext | (ApplyContext & AlertApplyContext),
): Promise<VerifyOutcome> {
  const written = results.filter((r) => r.status === 'applied' && r.change.action !== 'delete');
  const alerts = written.filter((r) => r.change.kind === 'alertConfig');
  const target = written[0]?.change.target;
  if (target === undefined) return {};
  try {
    if (alerts.length > 0) {
      const live = new Map((await ctx.api.listAlertConfigs(target.id)).map((c) => [c.id, c]));
      for (const r of alerts) {
        const id = r.id ?? r.change.id;
        const config = id === undefined ? undefined : live.get(id);
        if (config === undefined) {
          await guard(r, ctx, ['(missing after write)']);
          continue;
        }
        const fields = diffAlert(normaliseDesired(r.change.after as DesiredAlertBody), normaliseLive(config));
        if (fields.length > 0)
          await guard(
            r,
            ctx,
            fields.map((f) => f.path),
          );
      }
    }
    for (const r of written.filter((w) => w.change.kind !== 'alertConfig')) {
      const fields = await verifySingleton(r.change, ctx.api, ctx.readPin);
      if (fields.length > 0) await guard(r, ctx, fields);
    }
  } catch (error) {
    return {
      failure: {
        target,
        phase: 'verify',
        message: `re-read after writes failed: ${errorMessage(error)}`,
        code: errorCode(error) ?? 'VERIFY_FAILED',
      },
    };
  }
  return {};
}
