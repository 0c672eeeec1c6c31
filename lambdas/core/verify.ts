/**
 * Convergence check right after a target's writes. Ops Manager answers POST, PUT and PATCH with the config as it
 * stored it: that echo is compared with the desired body first, at no extra request. Whenever an echo differs or is
 * missing, one re-read of the target's alert list decides (so a flag is never raised on an odd response alone). Written
 * singletons are re-read with a GET. A written object that still differs is reported `not-converging`; an alert config
 * is then not rewritten until its desired state changes (no flapping loop), a singleton (which keeps no such guard) is
 * written again by the next run that finds it differing.
 */
import type { AlertConfig } from '../opsman/types.ts';
import { type DesiredAlertBody, hasSecretFields } from './alert-body.ts';
import type { ApplyContext } from './apply.ts';
import { verifySingleton } from './apply-singletons.ts';
import { errorCode, errorHttpStatus, errorMessage } from './concurrency.ts';
import { diffAlert } from './diff.ts';
import { ignoredOf, inIgnored } from './ignore-fields.ts';
import { secretsChangedOnLive } from './mask-check.ts';
import type { ChangeResult, TargetFailure } from './model.ts';
import { liveText, normaliseDesired, normaliseLive } from './normalise.ts';
import { desiredIdentity, NOT_CONVERGING_ADVICE } from './plan-alerts.ts';
import type { SecretResolver } from './ports.ts';
import { listAlertConfigsChecked } from './read-live.ts';
import { resolveBodySecrets } from './resolve-secrets.ts';

/** What a write returned: the stored config for alert writes that answer with one. Checked at once, never kept. */
export interface WriteEcho {
  response?: AlertConfig;
  /** Canonical JSON of the normalised desired body the write sent (PreparedBody.desiredText), when known. */
  desiredText?: string;
}

/**
 * What verification keeps of one applied write: whether its echo already proved it converged. The echo itself is
 * dropped right after the write, so 20 responses per target do not live (and age into the old heap) until the
 * target's last write.
 */
export interface WriteCheck {
  echoConfirmed: boolean;
}

/** What verification found beyond the per-result statuses it updates. */
export interface VerifyOutcome {
  failure?: TargetFailure;
}

async function guard(result: ChangeResult, ctx: ApplyContext, fields: string[]): Promise<void> {
  const change = result.change;
  result.status = 'not-converging';
  // Only an alert config is held back by a guard (its record stores one); a singleton has none and is written again by
  // the next run that finds it differing: the message must not promise otherwise.
  result.message =
    change.kind === 'alertConfig'
      ? `still differs after the write: ${fields.join(', ')}; not rewritten until its desired state changes (${NOT_CONVERGING_ADVICE})`
      : `still differs after the write: ${fields.join(', ')}; Ops Manager did not keep what was sent, and the next run that finds it differing writes it again (check what holds this setting on the server)`;
  if (change.kind !== 'alertConfig') return;
  const record = ctx.state.projects[change.target.id]?.alertConfigs[change.key];
  const body = change.after as DesiredAlertBody;
  const resolved = await resolveBodySecrets(body, ctx.secrets, change.key);
  if (record === undefined || !resolved.ok) return;
  record.notConverging = {
    desiredDigest: desiredIdentity(ctx.fingerprintKey, body, resolved.values),
    since: ctx.clock.now().toISOString(),
    fields,
  };
}

/**
 * The fields of `live` that differ from what the write sent, leaving out the members the body ignores: a person may
 * change those between the write and the re-read, and that is theirs to do, not a failure to converge.
 */
function differingFields(result: ChangeResult, live: AlertConfig): string[] {
  const body = result.change.after as DesiredAlertBody;
  const ignored = ignoredOf(body);
  return diffAlert(normaliseDesired(body), normaliseLive(live))
    .map((f) => f.path)
    .filter((path) => !inIgnored(path, ignored));
}

/**
 * True when the echo of a write equals what was sent. The common case is decided by one comparison of canonical
 * texts (the desired side was computed when the body was built); only an echo whose text differs is diffed field by
 * field, and an empty diff still counts as equal, exactly as before.
 */
function echoMatches(result: ChangeResult, echo: WriteEcho, response: AlertConfig): boolean {
  // liveText is canonicalJson(normaliseLive(response)) written directly (1.8 instead of 6 µs per echo).
  if (echo.desiredText !== undefined && liveText(response) === echo.desiredText) return true;
  return differingFields(result, response).length === 0;
}

/**
 * Whether the echo of an applied alert write proves it converged (same id, same normalised body). False for anything
 * else, including an echo that cannot be compared: verification then re-reads the target's list. Never throws.
 */
export function confirmEcho(result: ChangeResult, echo: WriteEcho): boolean {
  const response: unknown = echo.response;
  // An answer that is not an object says nothing about what was stored: the re-read decides.
  if (result.change.kind !== 'alertConfig' || response === null || typeof response !== 'object') return false;
  if ((response as { id?: unknown }).id !== (result.id ?? result.change.id)) return false;
  try {
    return echoMatches(result, echo, response as AlertConfig);
  } catch {
    return false;
  }
}

/**
 * The secret fields of an applied alert write whose redacted form in `live` cannot be what was sent (see
 * mask-check.ts), named `<path> (secret)`. Empty when the body has no secret or they cannot be resolved again (the
 * write itself resolved them; the run's resolver answers from its cache). A secret that still reads as another one
 * right after this tool sent it is not converging: plans would otherwise find it "changed on live" and rewrite it on
 * every run, were Ops Manager to redact in some way mask-check.ts does not foresee.
 */
export async function secretsNotKept(
  result: ChangeResult,
  live: AlertConfig,
  secrets: SecretResolver,
): Promise<string[]> {
  const body = result.change.after as DesiredAlertBody | undefined;
  if (result.change.kind !== 'alertConfig' || body === undefined || !hasSecretFields(body.notifications)) return [];
  try {
    const resolved = await resolveBodySecrets(body, secrets, result.change.key);
    if (!resolved.ok) return [];
    return secretsChangedOnLive(body, resolved.values, live).map((path) => `${path} (secret)`);
  } catch {
    return [];
  }
}

/** Checks what was written (`written`: each applied write, its echo already checked) and flags what did not converge. */
export async function verifyTarget(written: Map<ChangeResult, WriteCheck>, ctx: ApplyContext): Promise<VerifyOutcome> {
  const entries = [...written.entries()].filter(([r]) => r.status === 'applied' && r.change.action !== 'delete');
  const target = entries[0]?.[0].change.target;
  if (target === undefined) return {};
  try {
    const doubtful = entries.filter(([r, check]) => r.change.kind === 'alertConfig' && !check.echoConfirmed);
    if (doubtful.length > 0) {
      const live = new Map((await listAlertConfigsChecked(ctx.verifyApi ?? ctx.api, target.id)).map((c) => [c.id, c]));
      for (const [r] of doubtful) {
        const id = r.id ?? r.change.id;
        const config = id === undefined ? undefined : live.get(id);
        if (config === undefined) await guard(r, ctx, ['(missing after write)']);
        else {
          const fields = differingFields(r, config);
          if (fields.length === 0) fields.push(...(await secretsNotKept(r, config, ctx.secrets)));
          if (fields.length > 0) await guard(r, ctx, fields);
        }
      }
    }
    for (const [r] of entries.filter(([w]) => w.change.kind !== 'alertConfig')) {
      const fields = await verifySingleton(r.change, ctx.verifyApi ?? ctx.api, ctx.readPin);
      if (fields.length > 0) await guard(r, ctx, fields);
    }
  } catch (error) {
    return {
      failure: {
        target,
        phase: 'verify',
        message: `re-read after writes failed: ${errorMessage(error)}`,
        code: errorCode(error) ?? 'VERIFY_FAILED',
        ...(errorHttpStatus(error) === undefined ? {} : { httpStatus: errorHttpStatus(error) }),
      },
    };
  }
  return {};
}
