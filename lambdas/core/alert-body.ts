/**
 * The desired body of an alert config as it travels in a plan (`Change.after`): every field of the request, secrets
 * as SecretRefs. `buildAlertRequest` turns it into the request sent to Ops Manager, with secrets resolved.
 */

import type { AlertConfigRequest, Matcher, MetricThreshold, NotificationRequest, Threshold } from '../opsman/types.ts';
import { canonicalJson } from './canonical.ts';
import type { IgnorableField } from './desired/enums.ts';
import { MaskedValueError } from './errors.ts';
import type { DesiredAlertConfig, DesiredNotification, SecretRef } from './model.ts';
import { isSecretField, looksMasked, notificationIdentity } from './notification-types.ts';
import { byPath } from './order.ts';

/** An alert config body with secret references, never values: safe in plans, reports and saved plan files. */
export interface DesiredAlertBody {
  eventTypeName: string;
  enabled: boolean;
  matchers: Matcher[];
  metricThreshold?: MetricThreshold;
  threshold?: Threshold;
  notifications: DesiredNotification[];
  /**
   * The entry's ignoreFields, when it lists any: never sent (buildAlertRequest picks the request's members), but
   * carried in the plan so that apply records the digest and verification compares what they leave to Ops Manager.
   */
  ignoreFields?: IgnorableField[];
}

/** One secret reference of a body, with the field path it fills. */
export interface SecretUse {
  /**
   * `notifications[WEBHOOK].webhookSecret` (identity-based, not index-based; duplicates of one identity numbered by
   * content, see `secretPathPrefixes`).
   */
  path: string;
  /** Index in `notifications`. */
  index: number;
  field: string;
  ref: string;
}

/** The body part of a desired alert config (drops key, template and source). */
export function toDesiredAlertBody(config: DesiredAlertConfig): DesiredAlertBody {
  const body: DesiredAlertBody = {
    eventTypeName: config.eventTypeName,
    enabled: config.enabled,
    matchers: config.matchers ?? [],
    notifications: config.notifications,
  };
  if (config.metricThreshold !== undefined) body.metricThreshold = config.metricThreshold;
  if (config.threshold !== undefined) body.threshold = config.threshold;
  if (config.ignoreFields !== undefined && config.ignoreFields.length > 0) body.ignoreFields = config.ignoreFields;
  return body;
}

/** Identity-based path prefix of each notification: duplicates of one identity get `#2`, `#3` in list order. */
export function notificationPaths(notifications: readonly Record<string, unknown>[]): string[] {
  const seen = new Map<string, number>();
  return notifications.map((n) => {
    const id = notificationIdentity(n);
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return `notifications[${count === 1 ? id : `${id}#${count}`}]`;
  });
}

/**
 * Path prefix of each notification for its secrets: like `notificationPaths`, but duplicates of one identity (two
 * WEBHOOKs, whose URL is secret, share the identity `WEBHOOK`) are numbered in the order of their canonical JSON
 * (non-secret fields and secret references), not of the list. The stored secret fingerprints are bound to these
 * paths, so a reordered YAML list must not move a secret to another path: it would read as "secret changed" and
 * re-send every secret of the config for nothing.
 */
export function secretPathPrefixes(notifications: readonly Record<string, unknown>[]): string[] {
  const identities = notifications.map((n) => notificationIdentity(n));
  const groups = new Map<string, number[]>();
  identities.forEach((id, index) => {
    const group = groups.get(id);
    if (group === undefined) groups.set(id, [index]);
    else group.push(index);
  });
  const prefixes: string[] = [];
  for (const [id, indexes] of groups) {
    if (indexes.length === 1) {
      prefixes[indexes[0] as number] = `notifications[${id}]`;
      continue;
    }
    // Equal texts are equal notifications (same references): which of them gets which number changes nothing.
    const texts = new Map(indexes.map((i) => [i, canonicalJson(notifications[i])]));
    const ranked = [...indexes].sort((a, b) => {
      const ta = texts.get(a) as string;
      const tb = texts.get(b) as string;
      return ta < tb ? -1 : ta > tb ? 1 : a - b;
    });
    ranked.forEach((index, rank) => {
      prefixes[index] = `notifications[${rank === 0 ? id : `${id}#${rank + 1}`}]`;
    });
  }
  return prefixes;
}

/**
 * For notifications whose identity several share (two WEBHOOKs), their secret path prefix and 1-based position in the
 * list: what lets a secret's plan line say which one it is (FieldChange.item) when its `#2` says nothing a reader can
 * find. Notifications of a unique identity are left out.
 */
export function sharedSecretItems(notifications: readonly Record<string, unknown>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const n of notifications) {
    const id = notificationIdentity(n);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const items = new Map<string, number>();
  if (counts.size === notifications.length) return items;
  const prefixes = secretPathPrefixes(notifications);
  notifications.forEach((n, i) => {
    if ((counts.get(notificationIdentity(n)) ?? 0) > 1) items.set(prefixes[i] as string, i + 1);
  });
  return items;
}

/** True when some notification sets a secret field (cheap: no identity paths are built). */
export function hasSecretFields(notifications: readonly object[]): boolean {
  for (let i = 0; i < notifications.length; i++) {
    const record = notifications[i] as Record<string, unknown>;
    // for...in (plain objects: own keys only) walks the enum cache instead of allocating a key array: this runs for
    // every desired alert config of every plan.
    for (const field in record) {
      if (isSecretField(field) && record[field] !== undefined) return true;
    }
  }
  return false;
}

/** Every secret reference of a body, in a stable order. */
export function secretUses(body: DesiredAlertBody): SecretUse[] {
  // Most alert configs have no secret: skip the identity paths and the sort for them.
  if (!hasSecretFields(body.notifications)) return [];
  const paths = secretPathPrefixes(body.notifications as unknown as Record<string, unknown>[]);
  const uses: SecretUse[] = [];
  for (let index = 0; index < body.notifications.length; index++) {
    const n = body.notifications[index] as unknown as Record<string, unknown>;
    for (const field in n) {
      const value = n[field];
      if (!isSecretField(field) || value === undefined) continue;
      const ref = (value as SecretRef).secretRef;
      uses.push({ path: `${paths[index]}.${field}`, index, field, ref });
    }
  }
  return uses.sort(byPath);
}

/**
 * The request body for POST/PUT: desired fields plus resolved secrets (by SecretUse path), `enabled` always present.
 * Throws MaskedValueError when a resolved value looks like a redaction mask.
 */
export function buildAlertRequest(body: DesiredAlertBody, secrets: ReadonlyMap<string, string>): AlertConfigRequest {
  const uses = secretUses(body);
  const notifications: NotificationRequest[] = body.notifications.map((n, index) => {
    const out: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(n)) {
      if (value === undefined || isSecretField(field)) continue;
      out[field] = value;
    }
    for (const use of uses.filter((u) => u.index === index)) {
      const value = secrets.get(use.path);
      if (value === undefined) throw new MaskedValueError(`${use.path} (unresolved)`);
      if (looksMasked(value)) throw new MaskedValueError(use.path);
      out[use.field] = value;
    }
    return out as unknown as NotificationRequest;
  });
  const request: AlertConfigRequest = {
    enabled: body.enabled,
    eventTypeName: body.eventTypeName,
    matchers: body.matchers,
    notifications,
  };
  if (body.metricThreshold !== undefined) request.metricThreshold = body.metricThreshold;
  if (body.threshold !== undefined) request.threshold = body.threshold;
  return request;
}
