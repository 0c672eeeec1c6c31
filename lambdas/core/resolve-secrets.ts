/**
 * Resolves the secret references of desired alert configs. An unresolvable secret, or one whose value fails its shape
 * check (secret-shape.ts: empty, white space at an end, a control character, mask-like, a webhook URL that is not an
 * absolute http(s) URL), blocks that alert config only. Values live in memory for the run and are never logged,
 * planned or stored; reasons name the alert key, the field path and the reference, and where the reference is written
 * (`file:line:column`, from the loader's DesiredAlertConfig.secretSources; at apply time from apply-secret-places.ts),
 * never a value.
 */
import { type DesiredAlertBody, type SecretUse, secretUses } from './alert-body.ts';
import { errorMessage } from './concurrency.ts';
import { secretSourceKey } from './desired/secret-places.ts';
import type { SourceLocation } from './model.ts';
import type { ResolvedSecrets } from './plan-alerts.ts';
import type { SecretResolver } from './ports.ts';
import { secretShapeProblem } from './secret-shape.ts';

/** A resolver that asks the underlying one once per reference per run. */
export class CachingSecretResolver implements SecretResolver {
  private readonly cache = new Map<string, Promise<string>>();

  constructor(private readonly inner: SecretResolver) {}

  /** Resolves `ref`, reusing an earlier answer (or failure) of this run. */
  resolve(ref: string): Promise<string> {
    let hit = this.cache.get(ref);
    if (hit === undefined) {
      hit = this.inner.resolve(ref);
      this.cache.set(ref, hit);
    }
    return hit;
  }
}

/** How one reference resolved: its value, or why not. */
type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Where each secret reference of an alert config is written, by `notifications[<index>].<field>` (secretSourceKey). */
export type SecretSources = Readonly<Record<string, SourceLocation>>;

/**
 * Where the references of one alert config are written, as far as the caller knows: `sources` by secretSourceKey, and
 * for a reference not in them, why its place is not known (`notLocated`), or nothing to say at all.
 */
export interface SecretPlaces {
  sources?: SecretSources;
  /** Why a reference missing from `sources` could not be located (`the desired state changed since the plan was made`). */
  notLocated?: string;
}

/**
 * ` at file:line:column` of a use; `, not located (<why>),` when the caller said why its place is not known; else ''
 * (never a place that was not checked).
 */
function whereWritten(use: SecretUse, places: SecretPlaces | undefined): string {
  const at = places?.sources?.[secretSourceKey(use.index, use.field)];
  if (at !== undefined) return ` at ${at.file}:${at.line}:${at.column}`;
  return places?.notLocated === undefined ? '' : `, not located (${places.notLocated}),`;
}

/**
 * The secrets of one body (alert config `key`) from settled references, by field path; the first bad use (in path
 * order) decides. The reason points at the reference in its file when `sources` knows where it is written.
 */
function checkUses(
  key: string,
  uses: readonly SecretUse[],
  settled: ReadonlyMap<string, Settled>,
  places: SecretPlaces | undefined,
): ResolvedSecrets {
  const values = new Map<string, string>();
  for (const use of uses) {
    const named = `alert config "${key}": secret reference ${use.ref} (${use.path})${whereWritten(use, places)}`;
    const outcome = settled.get(use.ref) as Settled;
    if (!outcome.ok) {
      return { ok: false, reason: `${named} could not be resolved: ${errorMessage(outcome.error)}` };
    }
    const problem = secretShapeProblem(use.field, outcome.value);
    if (problem !== undefined) return { ok: false, reason: `${named} resolves to a value that ${problem}` };
    values.set(use.path, outcome.value as string);
  }
  return { ok: true, values };
}

/** Asks every distinct reference of `bodies` once, all together; returns each body's uses and every answer. */
async function settleAll(
  bodies: ReadonlyMap<string, DesiredAlertBody>,
  resolver: SecretResolver,
): Promise<{ usesOf: Map<string, SecretUse[]>; settled: Map<string, Settled> }> {
  const usesOf = new Map<string, SecretUse[]>();
  const pending = new Map<string, Promise<string>>();
  for (const [key, body] of bodies) {
    const uses = secretUses(body);
    usesOf.set(key, uses);
    for (const use of uses) {
      if (pending.has(use.ref)) continue;
      // A resolver that throws instead of rejecting is a failure of that reference, like a rejection.
      let answer: Promise<string>;
      try {
        answer = Promise.resolve(resolver.resolve(use.ref));
      } catch (error) {
        answer = Promise.reject(error);
      }
      pending.set(use.ref, answer);
    }
  }
  const settled = new Map<string, Settled>();
  await Promise.all(
    [...pending].map(([ref, answer]) =>
      answer.then(
        (value) => void settled.set(ref, { ok: true, value }),
        (error: unknown) => void settled.set(ref, { ok: false, error }),
      ),
    ),
  );
  return { usesOf, settled };
}

/**
 * Resolves the secrets of several bodies, by alert key: every distinct reference is asked once and all are awaited
 * together, then each body is checked on its own. The failure names the key, the field and the reference (and where
 * it is written, from `sources` by alert key), never a value; one body's bad secret never blocks another body.
 */
export async function resolveSecretsOf(
  bodies: ReadonlyMap<string, DesiredAlertBody>,
  resolver: SecretResolver,
  sources?: ReadonlyMap<string, SecretSources>,
): Promise<Map<string, ResolvedSecrets>> {
  const { usesOf, settled } = await settleAll(bodies, resolver);
  const out = new Map<string, ResolvedSecrets>();
  for (const [key, uses] of usesOf) {
    const found = sources?.get(key);
    out.set(key, checkUses(key, uses, settled, found === undefined ? undefined : { sources: found }));
  }
  return out;
}

/**
 * Resolves every secret of one body (alert config `key`), by field path, with the same checks as at plan time; the
 * failure names the key, the field and the reference, never a value. `locate` (apply time) is asked only when a
 * reference fails, for where the body's references are written: the reason then says it as plan time does.
 */
export async function resolveBodySecrets(
  body: DesiredAlertBody,
  resolver: SecretResolver,
  key: string,
  locate?: () => Promise<SecretPlaces>,
): Promise<ResolvedSecrets> {
  const { usesOf, settled } = await settleAll(new Map([[key, body]]), resolver);
  const uses = usesOf.get(key) ?? [];
  const resolved = checkUses(key, uses, settled, undefined);
  if (resolved.ok || locate === undefined) return resolved;
  // The same answers checked again, now knowing the places: the reference that failed first still decides.
  return checkUses(key, uses, settled, await locate());
}
