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
 * as their roles and intervals swapped. A desired one is named as `notificationPaths` names it (`notifications[GROUP]`,
 * `notifications[GROUP#2]`); a live one left without a partner is numbered after them.
 */
function pairNotifications(desired: NormalNotification[], live: NormalNotification[]): Map<string, NotificationPair> {
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
    wanted.forEach((n, i) => {
      const pair: NotificationPair = { desired: n };
      if (partner[i] !== undefined) pair.live = partner[i];
      pairs.set(name(id, i + 1), pair);
    });
    left.forEach((m, i) => {
      pairs.set(name(id, wanted.length + i + 1), { live: m });
    });
  }
  return pairs;
}

function diffNotifications(desired: NormalNotification[], live: NormalNotification[]): FieldChange[] {
  const pairs = pairNotifications(desired, live);
  const out: FieldChange[] = [];
  for (const path of [...pairs.keys()].sort()) {
    const { desired: dn, live: ln } = pairs.get(path) as NotificationPair;
    if (dn !== undefined && ln !== undefined) out.push(...diffObject(path, dn, ln));
    else if (dn !== undefined) out.push({ path, after: dn });
    else if (ln !== undefined) out.push({ path, before: ln });
  }
  return out;
}

/** Every field of `live` that differs from `desired` (empty: in sync apart from secret values). */
export function diffAlert(desired: NormalAlert, live: NormalAlert): FieldChange[] {
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
  out.push(...diffNotifications(desired.notifications, live.notifications));
  return out;
}

/** FieldChanges for secrets whose fingerprint differs from state (the value is never shown). */
export function secretChanges(paths: string[], known: boolean): FieldChange[] {
  return paths.map((path) => ({ path, secret: true, note: known ? 'changed' : 'set' }));
}

/**
 * `fields` (diffAlert's) plus the secrets whose fingerprint differs from the one in state (`stored`), one entry per
 * path. A secret the desired body has and live lacks is in `fields` already, as 'removed on live'; that holds only when
 * state recorded it (we sent it, and it is gone): one state never recorded is a field new in the desired state,
 * 'added'. Either way it is not listed a second time as 'changed'.
 */
export function withSecretChanges(
  fields: readonly FieldChange[],
  changed: readonly string[],
  stored: Readonly<Record<string, string>> | undefined,
): FieldChange[] {
  const out = [...fields];
  const rest: string[] = [];
  for (const path of changed) {
    const i = out.findIndex((f) => f.path === path && f.secret === true && f.note === 'removed on live');
    const listed = out[i];
    if (listed === undefined) rest.push(path);
    else if (stored?.[path] === undefined) out[i] = { ...listed, note: 'added' };
  }
  return [...out, ...secretChanges(rest, stored !== undefined)];
}

/** True when the only difference is `enabled`: applied with PATCH instead of a full PUT. */
export function onlyEnabledDiffers(fields: FieldChange[]): boolean {
  return fields.length === 1 && fields[0]?.path === 'enabled';
}
