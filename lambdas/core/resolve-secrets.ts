/**
 * Resolves the secret references of desired alert configs. An unresolvable or mask-like secret blocks that alert
 * config only. Values live in memory for the run and are never logged, planned or stored.
 */
import { type DesiredAlertBody, type SecretUse, secretUses } from './alert-body.ts';
import { errorMessage } from './concurrency.ts';
import { looksMasked } from './notification-types.ts';
import type { ResolvedSecrets } from './plan-alerts.ts';
import type { SecretResolver } from './ports.ts';

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

/** The secrets of one body from settled references, by field path; the first bad use (in path order) decides. */
function checkUses(uses: readonly SecretUse[], settled: ReadonlyMap<string, Settled>): ResolvedSecrets {
  const values = new Map<string, string>();
  for (const use of uses) {
    const outcome = settled.get(use.ref) as Settled;
    if (!outcome.ok) {
      return {
        ok: false,
        reason: `secret reference ${use.ref} (${use.path}) could not be resolved: ${errorMessage(outcome.error)}`,
      };
    }
    const value = outcome.value;
    if (typeof value !== 'string' || value === '') {
      return { ok: false, reason: `secret reference ${use.ref} (${use.path}) resolved to an empty value` };
    }
    if (looksMasked(value)) {
      return {
        ok: false,
        reason: `secret reference ${use.ref} (${use.path}) resolves to a value that looks like a redaction mask (****); refusing to send it`,
      };
    }
    values.set(use.path, value);
  }
  return { ok: true, values };
}

/**
 * Resolves the secrets of several bodies (by any key, e.g. alert config keys): every distinct reference is asked once
 * and all are awaited together, then each body is checked on its own. The failure names the reference, never a
 * value; one body's bad secret never blocks another body.
 */
export async function resolveSecretsOf<K>(
  bodies: ReadonlyMap<K, DesiredAlertBody>,
  resolver: SecretResolver,
): Promise<Map<K, ResolvedSecrets>> {
  const usesOf = new Map<K, SecretUse[]>();
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
  const out = new Map<K, ResolvedSecrets>();
  for (const [key, uses] of usesOf) out.set(key, checkUses(uses, settled));
  return out;
}

/** Resolves every secret of one body, by field path; the failure names the reference, never a value. */
export async function resolveBodySecrets(body: DesiredAlertBody, resolver: SecretResolver): Promise<ResolvedSecrets> {
  const one = await resolveSecretsOf(new Map([[0, body]]), resolver);
  return one.get(0) as ResolvedSecrets;
}
