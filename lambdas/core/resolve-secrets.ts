/**
 * Resolves the secret references of desired alert configs. An unresolvable secret, or one whose value fails its shape
 * check (secret-shape.ts: empty, white space at an end, a control character, mask-like, a webhook URL that is not an
 * absolute http(s) URL), blocks that alert config only. Values live in memory for the run and are never logged,
 * planned or stored; reasons name the alert key, the field path and the reference, and at plan time where the
 * reference is written (`file:line:column`, from the loader's DesiredAlertConfig.secretSources), never a value.
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

/** ` at file:line:column` of a use, or '' when its place is not known (a saved plan's body at apply time). */
function whereWritten(use: SecretUse, sources: SecretSources | undefined): string {
  const at = sources?.[secretSourceKey(use.index, use.field)];
  return at === undefined ? '' : ` at ${at.file}:${at.line}:${at.column}`;
}

/**
 * The secrets of one body (alert config `key`) from settled references, by field path; the first bad use (in path
 * order) decides. The reason points at the reference in its file when `sources` knows where it is written.
 */
function checkUses(
  key: string,
  uses: readonly SecretUse[],
  settled: ReadonlyMap<string, Settled>,
  sources: SecretSources | undefined,
): ResolvedSecrets {
  const values = new Map<string, string>();
  for (const use of uses) {
    const named = `alert config "${key}": secret reference ${use.ref} (${use.path})${whereWritten(use, sources)}`;
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
  const out = new Map<string, ResolvedSecrets>();
  for (const [key, uses] of usesOf) out.set(key, checkUses(key, uses, settled, sources?.get(key)));
  return out;
}

/**
 * Resolves every secret of one body (alert config `key`), by field path, with the same checks as at plan time; the
 * failure names the key, the field and the reference, never a value.
 */
export async function resolveBodySecrets(
  body: DesiredAlertBody,
  resolver: SecretResolver,
  key: string,
): Promise<ResolvedSecrets> {
  const one = await resolveSecretsOf(new Map([[key, body]]), resolver);
  return one.get(key) as ResolvedSecrets;
}
