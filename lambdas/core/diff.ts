/**
 * Field-level difference of two normalised alert configs. Notifications are paired by their non-secret identity
 * (never by index); secrets are compared by presence only here, and by fingerprint elsewhere.
 */

import { notificationPaths } from './alert-body.ts';
import { canonicalJson } from './canonical.ts';
import type { FieldChange } from './model.ts';
import type { NormalAlert, NormalNotification } from './normalise.ts';
import { isSecretField } from './notification-types.ts';

function same(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function byPath(list: NormalNotification[]): Map<string, NormalNotification> {
  const paths = notificationPaths(list);
  return new Map(list.map((n, i) => [paths[i] ?? `notifications[${i}]`, n]));
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

function diffNotifications(desired: NormalNotification[], live: NormalNotification[]): FieldChange[] {
  const d = byPath(desired);
  const l = byPath(live);
  const out: FieldChange[] = [];
  for (const path of [...new Set([...d.keys(), ...l.keys()])].sort()) {
    const dn = d.get(path);
    const ln = l.get(path);
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
