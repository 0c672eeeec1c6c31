/**
 * Secrets changed by hand in Ops Manager. A redacted value says nothing about the secret behind it, except the
 * characters the redaction kept: a webhook URL keeps its scheme and host, a key its last characters. When those kept
 * characters cannot belong to the value this tool would send, the secret in Ops Manager is certainly another one
 * (someone pointed the webhook elsewhere or pasted another key). Nothing else is concluded from a mask: each run of
 * `*` may stand for any text, of any length, so no redaction scheme that keeps real characters in place can make a
 * secret of ours look changed, and a fully masked value (a webhook secret) is never judged.
 */
import type { AlertConfig } from '../opsman/types.ts';
import { type DesiredAlertBody, type SecretUse, secretUses } from './alert-body.ts';
import { notificationText } from './normal-parts.ts';
import { notificationIdentity } from './notification-types.ts';

/** A URL that is only a scheme and a host (a port, a user-info), with at most the `/` of an empty path. */
const BARE_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#*]+\/?$/i;

/**
 * False only when `shown`, a live secret field as Ops Manager answered it, is a redaction mask (at least one `*`)
 * whose kept characters cannot be those of `real`: its text before the first `*` run must start `real`, its text
 * after the last must end it, and the texts between must appear in `real` in order, letter case aside. A bare URL
 * origin (`https://host`, a path-less webhook URL a redaction shows whole) is judged as the text before a mask. Anything
 * else that is not a mask (absent, empty, not a string, no `*`) is not judged here: true.
 */
export function maskAgrees(shown: unknown, real: string): boolean {
  // Any `*` makes it a mask here, not the four of looksMasked (which refuses a desired value that would send a mask):
  // a redaction keeps the length, so a webhook URL whose path is one character (`https://evil.example/x`) reads
  // `https://evil.example/*`, and a 6-character key `**xb-1`. Since each run of `*` may stand for any text, a `*` that
  // is in fact the secret's own character cannot make a secret of ours look changed.
  if (typeof shown !== 'string') return true;
  // A URL without a path has nothing to mask: the redaction shows it whole (`https://evil.example`), and it is judged
  // as the origin a mask keeps. Other text without a `*` (a placeholder, a value shown in clear) is not judged.
  if (!shown.includes('*') && !BARE_ORIGIN.test(shown)) return true;
  // Case is not judged: a server may well write a URL's scheme and host in lower case.
  const kept = shown.toLowerCase().split(/\*+/);
  const value = real.toLowerCase();
  const head = kept[0] ?? '';
  const tail = kept.length > 1 ? (kept[kept.length - 1] ?? '') : '';
  const afterHead = headAgrees(head, value);
  if (afterHead === undefined) return false;
  let at = afterHead;
  for (let i = 1; i < kept.length - 1; i++) {
    const found = value.indexOf(kept[i] ?? '', at);
    if (found < 0) return false;
    at = found + (kept[i] ?? '').length;
  }
  return value.length - tail.length >= at && value.endsWith(tail);
}

/**
 * Where the rest of the mask's kept characters may start in `value` when the text before its first `*` run can be
 * `value`'s beginning; undefined when it cannot. Both are in lower case. A kept URL origin is compared as a URL, not
 * as text: a server may write the host in punycode, drop a default or any port and the user-info, or add the `/` of an
 * empty path, and none of that is another secret. Only the scheme and the host (whole, or the start the mask kept) are
 * then judged, and the later kept characters may be anywhere in `value` (their place in the raw text is unknown).
 */
function headAgrees(head: string, value: string): number | undefined {
  if (value.startsWith(head)) return head.length;
  const origin = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([/?#])?/.exec(head);
  if (origin === null) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${origin[1]}:`) return undefined;
  const hostPort = (origin[2] ?? '').slice((origin[2] ?? '').lastIndexOf('@') + 1);
  if (origin[3] === undefined && !hostPort.includes(':')) {
    // A host the mask cut short (`https://hoo****`): its kept start must begin the host, in either spelling.
    const written = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#:]*)/.exec(value)?.[1] ?? '';
    return url.hostname.startsWith(hostPort) || written.startsWith(hostPort) ? 0 : undefined;
  }
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
  let shownHost: string;
  try {
    shownHost = new URL(`http://${host}`).hostname;
  } catch {
    return 0;
  }
  const bare = (h: string) => h.replace(/\.$/, '');
  return bare(shownHost) === bare(url.hostname) ? 0 : undefined;
}

/**
 * Paths of the secrets of `body` (as `secretUses` names them) that the live config holds certainly otherwise. A desired
 * notification is compared with the live notifications of its identity (two WEBHOOKs share one). Those whose other
 * fields are the same as its own (same normalised text) are its partners, each live notification partnering one
 * desired notification at most: two WEBHOOKs whose URLs a person swapped while their intervals stayed are two changed
 * secrets, and two of ours cannot both claim the one live notification that agrees with them. A desired notification
 * with no partner to agree with reports the fields no candidate agrees on (all of its fields when each agrees with a
 * different one), unless its live counterpart is simply missing (the diff's business, not this one's). A desired
 * notification whose other fields differ on live from all of its identity is judged against all of them: any one
 * agreeing on every secret field will do.
 */
export function secretsChangedOnLive(
  body: DesiredAlertBody,
  values: ReadonlyMap<string, string>,
  live: AlertConfig,
): string[] {
  const byIndex = new Map<number, SecretUse[]>();
  for (const use of secretUses(body)) {
    const list = byIndex.get(use.index);
    if (list === undefined) byIndex.set(use.index, [use]);
    else list.push(use);
  }
  if (byIndex.size === 0) return [];
  const liveNotifications = (Array.isArray(live.notifications) ? live.notifications : []).filter(
    (n): n is NonNullable<typeof n> => n !== null && typeof n === 'object',
  ) as unknown as Record<string, unknown>[];
  const agrees = (n: Record<string, unknown>, use: SecretUse): boolean => {
    const value = values.get(use.path);
    return value === undefined || maskAgrees(n[use.field], value);
  };
  // Every plan asks this of every config with a secret: the usual answer is found without the pairing below.
  if (agreesOneToOne(body, byIndex, liveNotifications, agrees)) return [];
  const liveTexts = liveNotifications.map((n) => notificationText(n));
  const changed: string[] = [];
  const lostOf = (uses: SecretUse[], candidates: Record<string, unknown>[]): string[] => {
    const lost = uses.filter((use) => candidates.every((n) => !agrees(n, use)));
    return (lost.length > 0 ? lost : uses).map((use) => use.path);
  };
  // Desired notifications with partners on live, grouped by their text: each group is matched on its own.
  const groups = new Map<string, { desired: number[]; live: number[] }>();
  for (const [index, uses] of byIndex) {
    const raw = body.notifications[index] as unknown as Record<string, unknown>;
    const text = notificationText(raw);
    const partners = liveTexts.flatMap((t, i) => (t === text ? [i] : []));
    if (partners.length > 0) {
      const group = groups.get(text);
      if (group === undefined) groups.set(text, { desired: [index], live: partners });
      else group.desired.push(index);
      continue;
    }
    const identity = notificationIdentity(raw);
    const candidates = liveNotifications.filter((n) => notificationIdentity(n) === identity);
    if (candidates.length === 0 || candidates.some((n) => uses.every((use) => agrees(n, use)))) continue;
    changed.push(...lostOf(uses, candidates));
  }
  for (const group of groups.values()) {
    const fits = (d: number, l: number): boolean =>
      (byIndex.get(d) as SecretUse[]).every((use) => agrees(liveNotifications[l] as Record<string, unknown>, use));
    const partnerOf = matchAll(group.desired, group.live, fits);
    // A live notification left without partner is one whose secret is another; none left (the pairing is one to one,
    // so as many pairs as live notifications): a notification is missing.
    if (partnerOf.size === group.live.length) continue;
    for (const d of group.desired) {
      if (partnerOf.has(d)) continue;
      changed.push(
        ...lostOf(
          byIndex.get(d) as SecretUse[],
          group.live.map((l) => liveNotifications[l] as Record<string, unknown>),
        ),
      );
    }
  }
  return changed.sort();
}

/**
 * The common case of {@link secretsChangedOnLive}, answered without its pairing: true when each desired notification
 * with secrets has an identity that no other of them and at most one live notification has, and that live
 * notification (when there is one) agrees on every secret field. The pairing would then find nothing either; any other
 * case (a repeated identity, a disagreement) is left to it, which also says what changed.
 */
function agreesOneToOne(
  body: DesiredAlertBody,
  byIndex: ReadonlyMap<number, SecretUse[]>,
  liveNotifications: readonly Record<string, unknown>[],
  agrees: (n: Record<string, unknown>, use: SecretUse) => boolean,
): boolean {
  // null: two live notifications have that identity.
  const liveByIdentity = new Map<string, Record<string, unknown> | null>();
  for (const n of liveNotifications) {
    const identity = notificationIdentity(n);
    liveByIdentity.set(identity, liveByIdentity.has(identity) ? null : n);
  }
  const seen = new Set<string>();
  for (const [index, uses] of byIndex) {
    const identity = notificationIdentity(body.notifications[index] as unknown as Record<string, unknown>);
    if (seen.has(identity)) return false;
    seen.add(identity);
    const live = liveByIdentity.get(identity);
    if (live === null) return false;
    if (live !== undefined && !uses.every((use) => agrees(live, use))) return false;
  }
  return true;
}

/**
 * A largest pairing of `left` with `right` along `fits` (augmenting paths: a handful of notifications at most), as
 * left -> right.
 */
function matchAll(left: number[], right: number[], fits: (l: number, r: number) => boolean): Map<number, number> {
  const ownerOf = new Map<number, number>();
  const tryPlace = (l: number, seen: Set<number>): boolean => {
    for (const r of right) {
      if (seen.has(r) || !fits(l, r)) continue;
      seen.add(r);
      const owner = ownerOf.get(r);
      if (owner === undefined || tryPlace(owner, seen)) {
        ownerOf.set(r, l);
        return true;
      }
    }
    return false;
  };
  for (const l of left) tryPlace(l, new Set());
  return new Map([...ownerOf].map(([r, l]) => [l, r]));
}
