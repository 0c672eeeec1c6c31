/**
 * One live alert config as the YAML a person would write: read through the product's own normalisation (normalise.ts:
 * server-only fields dropped, fields a notification type does not echo dropped, lists in canonical order, numbers
 * numeric), then every value equal to the default the loader or Ops Manager fills is left out, and every secret becomes
 * a reference. Loading the entry gives a body that normalises to the live config's normal form: adoption matches it.
 */
import type { AlertConfig } from '../../opsman/types.ts';
import { type NormalNotification, normaliseLive, SECRET, THRESHOLD_DEFAULTS } from '../normalise.ts';
import { echoedFields, isSecretField, NOTIFICATION_DEFAULTS } from '../notification-types.ts';
import { exportedSecretRef } from './export-secrets.ts';

/** An alert config entry of `spec.alertConfigs`, and the secret references it holds. */
export interface ExportedAlert {
  entry: Record<string, unknown>;
  secretRefs: string[];
}

/** Threshold members in the order a person reads them; any other member follows, sorted. */
const THRESHOLD_ORDER: readonly string[] = ['metricName', 'operator', 'threshold', 'units', 'mode'];

/** A normalised threshold without the members equal to the defaults Ops Manager fills. */
function thresholdEntry(
  threshold: Record<string, unknown>,
  defaults: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const extra = Object.keys(threshold)
    .filter((k) => !THRESHOLD_ORDER.includes(k))
    .sort();
  for (const member of [...THRESHOLD_ORDER, ...extra]) {
    const value = threshold[member];
    if (value === undefined || value === defaults[member]) continue;
    out[member] = value;
  }
  return out;
}

/**
 * A normalised notification as YAML: typeName first, then the fields its type echoes in their usual order, defaults
 * left out, secrets as references from `refOf` (which numbers them per field across the whole config).
 */
function notificationEntry(
  notification: NormalNotification,
  refOf: (field: string) => string,
): { entry: Record<string, unknown>; refs: string[] } {
  const entry: Record<string, unknown> = { typeName: notification.typeName };
  const refs: string[] = [];
  for (const field of echoedFields(notification.typeName)) {
    const value = notification[field];
    if (value === undefined || value === NOTIFICATION_DEFAULTS[field]) continue;
    if (isSecretField(field) && value === SECRET) {
      const ref = refOf(field);
      refs.push(ref);
      entry[field] = { secretRef: ref };
      continue;
    }
    entry[field] = value;
  }
  return { entry, refs };
}

/** The YAML entry of one live alert config under `key`, its secrets as references under `projectId`. */
export function exportAlertConfig(config: AlertConfig, key: string, projectId: string): ExportedAlert {
  const normal = normaliseLive(config);
  const entry: Record<string, unknown> = { key, eventTypeName: normal.eventTypeName };
  // The loader's default is true (the API's is false): only a disabled config says so.
  if (!normal.enabled) entry.enabled = false;
  if (normal.matchers.length > 0) entry.matchers = normal.matchers;
  if (normal.metricThreshold !== undefined) {
    entry.metricThreshold = thresholdEntry(normal.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold);
  }
  if (normal.threshold !== undefined) entry.threshold = thresholdEntry(normal.threshold, THRESHOLD_DEFAULTS.threshold);
  const occurrences = new Map<string, number>();
  const refOf = (field: string) => {
    const n = (occurrences.get(field) ?? 0) + 1;
    occurrences.set(field, n);
    return exportedSecretRef(projectId, key, field, n);
  };
  const secretRefs: string[] = [];
  entry.notifications = normal.notifications.map((n) => {
    const { entry: item, refs } = notificationEntry(n, refOf);
    secretRefs.push(...refs);
    return item;
  });
  return { entry, secretRefs };
}
