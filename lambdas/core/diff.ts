/**
 * Field-level difference of two normalised alert configs. Notifications are paired by their non-secret identity
 * (never by index); secrets are compared by presence only here, and by fingerprint elsewhere.
 */

import { canonicalJson } from './canonical.ts';
import type { FieldChange } from './model.ts';
import type { NormalAlert, NormalNotification } from './normalise.ts';
import { isSecretField, notificationIdentity } from './notification-types.ts';

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function diffObject(prefix: string, desired: Record<string, unknown>, live: Record<string, unknown>): FieldChange[] {
  const out: FieldChange[] = [];
  const keys = [...new Set([...Object.keys(desired), ...Object.keys(live)])].sort();
  for (const key of keys) {
    const d = desired[key];
    const l = live[key];
    if (same(d, l)) continue;
    const path = `${prefix}.${key}`;
    if (isSecretField(key)) {
      out.push({ path, secret: true, note: d === undefined ? 'set on live, not in desired' : 'removed on live' });
    } else {
      const change: FieldChange = { path };
      if (l !== undefined) change.before = l;
      if (d !== undefined) change.after = d;
      out.push(change);
    }
  }
  return out;
}

/** A desired notification, its live counterpart, or both. */
interface NotificationPair {
  desired?: NormalNotification;
  live?: NormalNotification;
  /** FieldChange.item: set when several notifications share the pair's identity and the YAML order is known. */
  item?: number;
  /** Where its fields go among the others: its path, or for a shared identity its first path then its item. */
  sortKey: string;
}

/**
 * The 1-based position in `order` (the desired notifications normalised one by one, in YAML order) of each of
 * `wanted`, matched by canonical text; equal ones take their positions in turn (they are interchangeable).
 */
function yamlPositions(
  wanted: readonly NormalNotification[],
  order: readonly NormalNotification[],
): (number | undefined)[] {
  const positions = new Map<string, number[]>();
  order.forEach((n, i) => {
    const text = canonicalJson(n);
    positions.set(text, [...(positions.get(text) ?? []), i + 1]);
  });
  // Never missing (both sides are normaliseNotification's); if it were, no item beats a wrong one.
  return wanted.map((n) => positions.get(canonicalJson(n))?.shift());
}

function groupByIdentity(list: readonly NormalNotification[]): Map<string, NormalNotification[]> {
  const groups = new Map<string, NormalNotification[]>();
  for (const n of list) {
    const id = notificationIdentity(n);
    groups.set(id, [...(groups.get(id) ?? []), n]);
  }
  return groups;
}

/**
 * Desired and live notifications paired by identity, under their paths. Duplicates of one identity (two GROUP
 * notifications) are paired by content, never by position: equal ones first, then each desired one with the live one
 * it differs from in the fewest fields. By position, changing one of two GROUPs so that it sorts before the other read
 * as their roles and intervals swapped. Desired ones are numbered in their normalised (sorted) order
 * (`notifications[GROUP]`, `notifications[GROUP#2]`); a live one left without a partner is numbered after them. With
 * `orderOf`, each pair of a shared identity also gets its YAML position (`item`), which is what a reader can find.
 */
function pairNotifications(
  desired: NormalNotification[],
  live: NormalNotification[],
  orderOf: (() => readonly NormalNotification[]) | undefined,
): Map<string, NotificationPair> {
  let order: readonly NormalNotification[] | undefined;
  const d = groupByIdentity(desired);
  const l = groupByIdentity(live);
  const pairs = new Map<string, NotificationPair>();
  const name = (id: string, n: number) => `notifications[${n === 1 ? id : `${id}#${n}`}]`;
  for (const id of new Set([...d.keys(), ...l.keys()])) {
    const wanted = d.get(id) ?? [];
    const left = [...(l.get(id) ?? [])];
    const partner: (NormalNotification | undefined)[] = wanted.map((n) => {
      const i = left.findIndex((m) => same(n, m));
      return i < 0 ? undefined : left.splice(i, 1)[0];
    });
    wanted.forEach((n, i) => {
      if (partner[i] !== undefined || left.length === 0) return;
      const cost = left.map((m) => diffObject('', n, m).length);
      partner[i] = left.splice(cost.indexOf(Math.min(...cost)), 1)[0];
    });
    // Several of one identity: `#2` says nothing a reader can find, so each says where it is in the YAML.
    const shared = orderOf !== undefined && (wanted.length > 1 || (l.get(id)?.length ?? 0) > 1);
    // Built once, and only for a config that has such a pair: most have none.
    if (shared) order ??= orderOf();
    const items = shared && order !== undefined ? yamlPositions(wanted, order) : [];
    // Shared: in YAML order, then the live ones only (item 0), as a reader goes down the list.
    const sortKey = (path: string, item: number) =>
      shared ? `${name(id, 1)} ${String(item === 0 ? Number.MAX_SAFE_INTEGER : item).padStart(16, '0')} ${path}` : path;
    wanted.forEach((n, i) => {
      const path = name(id, i + 1);
      const item = items[i];
      const pair: NotificationPair = { desired: n, sortKey: sortKey(path, item ?? 0) };
      if (partner[i] !== undefined) pair.live = partner[i];
      if (item !== undefined) pair.item = item;
      pairs.set(path, pair);
    });
    left.forEach((m, i) => {
      const path = name(id, wanted.length + i + 1);
      pairs.set(path, shared ? { live: m, item: 0, sortKey: sortKey(path, 0) } : { live: m, sortKey: path });
    });
  }
  return pairs;
}

function diffNotifications(
  desired: NormalNotification[],
  live: NormalNotification[],
  orderOf: (() => readonly NormalNotification[]) | undefined,
): FieldChange[] {
  const pairs = pairNotifications(desired, live, orderOf);
  const out: FieldChange[] = [];
  const sorted = [...pairs].sort(([, a], [, b]) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  for (const [path, { desired: dn, live: ln, item }] of sorted) {
    const fields: FieldChange[] = [];
    if (dn !== undefined && ln !== undefined) fields.push(...diffObject(path, dn, ln));
    else if (dn !== undefined) fields.push({ path, after: dn });
    else if (ln !== undefined) fields.push({ path, before: ln });
    for (const field of fields) out.push(item === undefined ? field : { ...field, item });
  }
  return out;
}

/**
 * Every field of `live` that differs from `desired` (empty: in sync apart from secret values). `orderOf`, giving the
 * desired notifications normalised one by one in YAML order (desiredNotificationOrder), lets a field of one of several
 * notifications of one identity say which one it is (FieldChange.item); it is called only for a config that has such
 * a field. Without it, no field says.
 */
export function diffAlert(
  desired: NormalAlert,
  live: NormalAlert,
  orderOf?: () => readonly NormalNotification[],
): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of ['eventTypeName', 'enabled'] as const) {
    if (desired[field] !== live[field]) out.push({ path: field, before: live[field], after: desired[field] });
  }
  if (!same(desired.matchers, live.matchers))
    out.push({ path: 'matchers', before: live.matchers, after: desired.matchers });
  for (const field of ['metricThreshold', 'threshold'] as const) {
    const dv = desired[field];
    const lv = live[field];
    if (same(dv, lv)) continue;
    if (dv === undefined || lv === undefined) {
      const change: FieldChange = { path: field };
      if (lv !== undefined) change.before = lv;
      if (dv !== undefined) change.after = dv;
      out.push(change);
    } else {
      out.push(...diffObject(field, dv, lv));
    }
  }
  out.push(...diffNotifications(desired.notifications, live.notifications, orderOf));
  return out;
}

/** FieldChanges for secrets whose fingerprint differs from state (the value is never shown). */
export function secretChanges(paths: string[], known: boolean): FieldChange[] {
  return paths.map((path) => ({ path, secret: true, note: known ? 'changed' : 'set' }));
}

/**
 * True when `field`, a secret entry of diffAlert's, is the secret at `path` (a secret path, secretPathPrefixes'). For
 * notifications of a shared identity the two number their `#2` differently (the diff in sorted normal-form order, the
 * secret paths by canonical JSON with references), so there the path text would pair one webhook's secret with
 * another's: both agree on the YAML position, `items` (sharedSecretItems') for the secret path, FieldChange.item for
 * the diff's, and on the field name after the last `.`.
 */
function isSecretAt(field: FieldChange, path: string, items: ReadonlyMap<string, number> | undefined): boolean {
  const dot = path.lastIndexOf('.');
  const item = items?.get(path.slice(0, dot));
  if (item === undefined) return field.path === path;
  return field.item === item && field.path.slice(field.path.lastIndexOf('.')) === path.slice(dot);
}

/**
 * `fields` (diffAlert's) plus the secrets whose fingerprint differs from the one in state (`stored`), one entry per
 * secret. A secret the desired body has and live lacks is in `fields` already, as 'removed on live'; that holds only
 * when state recorded it (we sent it, and it is gone): one state never recorded is a field new in the desired state,
 * 'added'. Either way it is not listed a second time as 'changed'. `items` (sharedSecretItems' of the desired body)
 * says which `fields` entry is which secret where several notifications share an identity; without it, they are
 * matched by path text, which is right only where no identity is shared.
 */
export function withSecretChanges(
  fields: readonly FieldChange[],
  changed: readonly string[],
  stored: Readonly<Record<string, string>> | undefined,
  items?: ReadonlyMap<string, number>,
): FieldChange[] {
  const out = [...fields];
  const rest: string[] = [];
  for (const path of changed) {
    // A secret of a notification listed as added whole (`(none) -> {..."apiToken":"(secret)"...}`, a new one or one
    // whose identity changed, such as a Slack channel renamed): it is new with its notification, and a `(secret
    // changed)` line under it would say a secret was replaced that never was there.
    if (inAddedNotification(out, path, items)) continue;
    const i = out.findIndex((f) => f.secret === true && f.note === 'removed on live' && isSecretAt(f, path, items));
    const listed = out[i];
    if (listed === undefined) rest.push(path);
    else if (stored?.[path] === undefined) out[i] = { ...listed, note: 'added' };
  }
  return [...out, ...secretChanges(rest, stored !== undefined)];
}

/**
 * True when `path` (a secret path, `notifications[SLACK:#ops].apiToken`) is a field of a notification that `fields`
 * lists as added whole (only an `after`). `items`: as for isSecretAt, where several notifications share an identity.
 */
function inAddedNotification(
  fields: readonly FieldChange[],
  path: string,
  items: ReadonlyMap<string, number> | undefined,
): boolean {
  const parent = path.slice(0, path.lastIndexOf('.'));
  if (!parent.startsWith('notifications[')) return false;
  const item = items?.get(parent);
  return fields.some(
    (f) =>
      f.secret !== true &&
      'after' in f &&
      !('before' in f) &&
      (item === undefined ? f.path === parent : f.item === item && f.path.endsWith(']')),
  );
}

/** True when the only difference is `enabled`: applied with PATCH instead of a full PUT. */
export function onlyEnabledDiffers(fields: FieldChange[]): boolean {
  return fields.length === 1 && fields[0]?.path === 'enabled';
}
