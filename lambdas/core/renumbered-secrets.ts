/**
 * Secrets that only moved to another path. Several notifications of one identity (two WEBHOOKs) number their secret
 * paths by content (`secretPathPrefixes`): an edit that changes the ranking, or removes one of them, gives a webhook
 * the paths another one had, and the state's fingerprints, bound to path and value, then differ although no secret
 * value changed. Such a secret is not a change: nothing needs re-sending for it.
 */
import { buildAlertRequest, type DesiredAlertBody, secretUses } from './alert-body.ts';
import { bodyFingerprint, type FingerprintCache, secretFingerprint } from './fingerprint.ts';
import { notificationIdentity } from './notification-types.ts';

/** The secrets of one desired notification, at its current path prefix. */
interface Holder {
  identity: string;
  prefix: string;
  fields: { field: string; path: string; value: string }[];
}

/** True when `prefix` is one that `secretPathPrefixes` gives a notification of `identity` (`[id]` or `[id#N]`). */
function isPrefixOf(identity: string, prefix: string): boolean {
  const head = `notifications[${identity}`;
  if (!prefix.startsWith(head) || !prefix.endsWith(']')) return false;
  const rest = prefix.slice(head.length, -1);
  return rest === '' || /^#\d+$/.test(rest);
}

/**
 * Of `changed` (changedSecretPaths' answer), the paths whose value is the one state recorded for the same field of a
 * sibling notification (same identity, another `#N`) that this notification took over. A notification is taken to
 * come from a sibling only when none of its secrets matches at its own path and that sibling's path is not still held
 * by the notification state recorded there; each sibling is taken over by one notification at most. So a secret set
 * to another webhook's value stays a change, as long as one secret of its notification is unchanged or that other
 * webhook kept its paths. HMACs are computed only for notifications with a changed secret and a sibling in state:
 * configs without shared identities pay nothing.
 */
export function renumberedSecretPaths(
  key: Uint8Array,
  body: DesiredAlertBody,
  values: ReadonlyMap<string, string>,
  stored: Readonly<Record<string, string>> | undefined,
  changed: readonly string[],
  cache?: FingerprintCache,
): Set<string> {
  const out = new Set<string>();
  if (stored === undefined || changed.length === 0) return out;
  const changedSet = new Set(changed);
  const holders = new Map<number, Holder>();
  for (const use of secretUses(body)) {
    const value = values.get(use.path);
    if (value === undefined) continue;
    let holder = holders.get(use.index);
    if (holder === undefined) {
      const notification = body.notifications[use.index] as unknown as Record<string, unknown>;
      const prefix = use.path.slice(0, use.path.length - use.field.length - 1);
      holder = { identity: notificationIdentity(notification), prefix, fields: [] };
      holders.set(use.index, holder);
    }
    holder.fields.push({ field: use.field, path: use.path, value });
  }
  // A notification with a secret unchanged at its own path is the one state recorded there: its prefix is taken.
  const taken = new Set<string>();
  const moving: Holder[] = [];
  for (const holder of holders.values()) {
    if (holder.fields.every((f) => changedSet.has(f.path))) moving.push(holder);
    else taken.add(holder.prefix);
  }
  if (moving.length === 0) return out;
  // The field paths state holds, by prefix (the field follows the last `.`; an identity may hold dots, a field not).
  const storedPrefixes = new Set<string>();
  for (const path of Object.keys(stored)) storedPrefixes.add(path.slice(0, path.lastIndexOf('.')));
  const matches = (prefix: string, field: string, value: string): boolean => {
    const path = `${prefix}.${field}`;
    const fingerprint = stored[path];
    return fingerprint !== undefined && fingerprint === secretFingerprint(key, path, value, cache);
  };
  moving.sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
  for (const holder of moving) {
    const siblings = [...storedPrefixes].filter(
      (p) => p !== holder.prefix && !taken.has(p) && isPrefixOf(holder.identity, p),
    );
    for (const sibling of siblings.sort()) {
      const same = holder.fields.filter((f) => matches(sibling, f.field, f.value));
      if (same.length === 0) continue;
      taken.add(sibling);
      for (const f of same) out.add(f.path);
      break;
    }
  }
  return out;
}

/**
 * True when `recorded` (a record's `fingerprint`, the HMAC of the whole request last sent, secrets included) is the
 * fingerprint of the request `body` with `values` builds: every secret is then the one sent at the same place, and
 * none changed whatever paths the record's secret fingerprints use. Releases before 2026-11-26 numbered the paths of
 * same-identity notifications (two WEBHOOKs) by list position, not content: after an upgrade such a config read as
 * every secret changed and was re-sent. Undefined or a body that cannot be built (an unresolved or masked value) is
 * false: the per-path answer stands.
 */
export function sentAsRecorded(
  key: Uint8Array,
  body: DesiredAlertBody,
  values: ReadonlyMap<string, string>,
  recorded: string | undefined,
): boolean {
  if (recorded === undefined) return false;
  try {
    return bodyFingerprint(key, buildAlertRequest(body, values)) === recorded;
  } catch {
    return false;
  }
}
