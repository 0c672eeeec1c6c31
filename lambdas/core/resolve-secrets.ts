/**
 * Resolves the secret references of desired alert configs. An unresolvable or mask-like secret blocks that alert
 * config only. Values live in memory for the run and are never logged, planned or stored.
 */
import { type DesiredAlertBody, secretUses } from './alert-body.ts';
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

/** Resolves every secret of one body, by field path; the failure names the reference, never a value. */
export async function resolveBodySecrets(body: DesiredAlertBody, resolver: SecretResolver): Promise<ResolvedSecrets> {
  const values = new Map<string, string>();
  for (const use of secretUses(body)) {
    let value: string;
    try {
      value = await resolver.resolve(use.ref);
    } catch (error) {
      return {
        ok: false,
        reason: `secret reference ${use.ref} (${use.path}) could not be resolved: ${errorMessage(error)}`,
      };
    }
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
