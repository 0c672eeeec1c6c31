/**
 * Normalisation: both the desired body and the live alert config become the same plain model, so that equality of
 * the canonical JSON means "in sync". Server-only fields are dropped, server defaults filled, lists sorted, numbers
 * made numeric, fields a notification type does not echo removed, and every secret replaced by the marker SECRET.
 */
import type { AlertConfig, Matcher } from '../opsman/types.ts';
import type { DesiredAlertBody } from './alert-body.ts';
import { canonicalJson, digestOf, sha256Hex } from './canonical.ts';
import { echoedFields, isSecretField, NOTIFICATION_DEFAULTS } from './notification-types.ts';

/** What a secret field holds in the normalised model: present, value unknown. */
export const SECRET = '(secret)';

/** A normalised notification: typeName plus the fields its type echoes (secrets as SECRET). */
export type NormalNotification = Record<string, unknown> & { typeName: string };

/** A normalised alert config. */
export interface NormalAlert {
  eventTypeName: string;
  enabled: boolean;
  matchers: Matcher[];
  metricThreshold?: Record<string, unknown>;
  threshold?: Record<string, unknown>;
  notifications: NormalNotification[];
}

function num(value: unknown): unknown {
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

/** Values Ops Manager fills in thresholds when they are not sent. */
export const THRESHOLD_DEFAULTS: Readonly<Record<'metricThreshold' | 'threshold', Record<string, unknown>>> = {
  metricThreshold: { mode: 'AVERAGE', units: 'RAW' },
  threshold: { units: 'RAW' },
};

function normaliseThreshold(value: unknown, defaults: Record<string, unknown>): Record<string, unknown> | undefined {
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  const out: Record<string, unknown> = { ...defaults };
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    out[k] = k === 'threshold' ? num(v) : v;
  }
  return out;
}

function normaliseNotification(raw: Record<string, unknown>): NormalNotification {
  const typeName = String(raw.typeName ?? '');
  const out: NormalNotification = { typeName };
  for (const field of echoedFields(typeName)) {
    let value = raw[field];
    if (value === undefined || value === null) value = NOTIFICATION_DEFAULTS[field];
    if (value === undefined || value === null) continue;
    if (isSecretField(field)) {
      if (value === '') continue;
      out[field] = SECRET;
    } else if (field === 'roles') {
      out.roles = [...(value as unknown[]).map(String)].sort();
    } else if (field === 'delayMin' || field === 'intervalMin') {
      out[field] = num(value);
    } else {
      out[field] = value;
    }
  }
  if (out.roles === undefined && typeof raw.role === 'string' && echoedFields(typeName).includes('roles')) {
    out.roles = [raw.role];
  }
  return out;
}

function sortByCanonical<T>(items: T[]): T[] {
  return items
    .map((item) => ({ item, text: canonicalJson(item) }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
    .map((x) => x.item);
}

function normaliseBody(raw: {
  eventTypeName: string;
  enabled?: boolean;
  matchers?: Matcher[];
  metricThreshold?: unknown;
  threshold?: unknown;
  notifications?: unknown[];
}): NormalAlert {
  const out: NormalAlert = {
    eventTypeName: raw.eventTypeName,
    enabled: raw.enabled ?? false,
    matchers: sortByCanonical(
      (raw.matchers ?? []).map((m) => ({ fieldName: m.fieldName, operator: m.operator, value: String(m.value) })),
    ),
    notifications: sortByCanonical(
      (raw.notifications ?? []).map((n) => normaliseNotification(n as Record<string, unknown>)),
    ),
  };
  const metricThreshold = normaliseThreshold(raw.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold);
  if (metricThreshold !== undefined) out.metricThreshold = metricThreshold;
  const threshold = normaliseThreshold(raw.threshold, THRESHOLD_DEFAULTS.threshold);
  if (threshold !== undefined) out.threshold = threshold;
  return out;
}

/** Normalises a live alert config (as read from Ops Manager). */
export function normaliseLive(config: AlertConfig): NormalAlert {
  return normaliseBody(config as unknown as Parameters<typeof normaliseBody>[0]);
}

/** Normalises a desired body (secret references count as present secrets). */
export function normaliseDesired(body: DesiredAlertBody): NormalAlert {
  return normaliseBody(body as unknown as Parameters<typeof normaliseBody>[0]);
}

/** Digest of a normalised alert: the `appliedDigest` kept in state and the unit of equality. */
export function normalDigest(alert: NormalAlert): string {
  return digestOf(alert);
}

/** True when two normalised alerts are equal. */
export function sameNormal(a: NormalAlert, b: NormalAlert): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A live config seen once: its normal form, canonical text and digest (computed lazily, cached per object). */
export interface LiveView {
  normal: NormalAlert;
  text: string;
  digest: string;
}

const views = new WeakMap<AlertConfig, { normal: NormalAlert; text: string; digest?: string }>();

/** The normalised view of a live config; repeated calls on the same object cost one lookup. */
export function liveView(config: AlertConfig): LiveView {
  let view = views.get(config);
  if (view === undefined) {
    const normal = normaliseLive(config);
    view = { normal, text: canonicalJson(normal) };
    views.set(config, view);
  }
  view.digest ??= sha256Hex(view.text);
  return view as LiveView;
}
