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
  // Copied key by key: adding members to an object made by spread is many times slower than to a built one.
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(defaults)) out[k] = defaults[k];
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    const v = record[k];
    if (v === undefined || v === null) continue;
    out[k] = k === 'threshold' ? num(v) : v;
  }
  return out;
}

/** How a notification field is normalised. */
type FieldKind = 'plain' | 'secret' | 'roles' | 'numeric';

/** What normalising a notification of one type needs, worked out once per echoed-field list. */
interface TypeShape {
  /** The echoed fields, in list order (the order members are added: plans print it). */
  fields: readonly string[];
  kinds: readonly FieldKind[];
  echoesRoles: boolean;
  /** Every possible member (typeName and the echoed fields) in canonical (sorted) order, and its `"name":` prefix. */
  sorted: readonly string[];
  prefixes: readonly string[];
}

const shapes = new WeakMap<readonly string[], TypeShape>();

function shapeOf(echoed: readonly string[]): TypeShape {
  let shape = shapes.get(echoed);
  if (shape === undefined) {
    const sorted = ['typeName', ...echoed].sort();
    shape = {
      fields: echoed,
      kinds: echoed.map(
        (field): FieldKind =>
          isSecretField(field)
            ? 'secret'
            : field === 'roles'
              ? 'roles'
              : field === 'delayMin' || field === 'intervalMin'
                ? 'numeric'
                : 'plain',
      ),
      echoesRoles: echoed.includes('roles'),
      sorted,
      prefixes: sorted.map((field) => `${JSON.stringify(field)}:`),
    };
    shapes.set(echoed, shape);
  }
  return shape;
}

/** A normalised item with its canonical JSON text. */
interface Texted<T> {
  item: T;
  text: string;
}

function normaliseNotification(raw: Record<string, unknown>): Texted<NormalNotification> {
  const typeName = String(raw.typeName ?? '');
  const out: NormalNotification = { typeName };
  const shape = shapeOf(echoedFields(typeName));
  const { fields, kinds } = shape;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    let value = raw[field];
    if (value === undefined || value === null) value = NOTIFICATION_DEFAULTS[field];
    if (value === undefined || value === null) continue;
    switch (kinds[i]) {
      case 'secret':
        if (value !== '') out[field] = SECRET;
        break;
      case 'roles':
        out.roles = [...(value as unknown[]).map(String)].sort();
        break;
      case 'numeric':
        out[field] = num(value);
        break;
      default:
        out[field] = value;
    }
  }
  if (out.roles === undefined && typeof raw.role === 'string' && shape.echoesRoles) {
    out.roles = [raw.role];
  }
  // The members in sorted order: the same text canonicalJson(out) gives, without sorting keys per call.
  let text = '{';
  const { sorted, prefixes } = shape;
  for (let i = 0; i < sorted.length; i++) {
    const value = out[sorted[i] as string];
    if (value === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${prefixes[i]}${typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value)}`;
  }
  return { item: out, text: `${text}}` };
}

function normaliseMatcher(m: Matcher): Texted<Matcher> {
  const item = { fieldName: m.fieldName, operator: m.operator, value: String(m.value) };
  // Keys already in canonical order; canonicalJson drops undefined members (a malformed live matcher).
  let text = '{';
  if (item.fieldName !== undefined) text += `"fieldName":${canonicalJson(item.fieldName)}`;
  if (item.operator !== undefined) text += `${text.length > 1 ? ',' : ''}"operator":${canonicalJson(item.operator)}`;
  return { item, text: `${text}${text.length > 1 ? ',' : ''}"value":${JSON.stringify(item.value)}}` };
}

/** Sorts by canonical text; returns the items and the canonical text of the sorted list. */
function sortTexted<T>(entries: Texted<T>[]): { items: T[]; text: string } {
  if (entries.length > 1) entries.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const items: T[] = new Array(entries.length);
  let text = '[';
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as Texted<T>;
    items[i] = entry.item;
    text += i > 0 ? `,${entry.text}` : entry.text;
  }
  return { items, text: `${text}]` };
}

/** A normalised alert and its canonical JSON (always equal to `canonicalJson(normal)`), made in one pass. */
export interface NormalForm {
  normal: NormalAlert;
  text: string;
}

function normaliseBody(raw: {
  eventTypeName: string;
  enabled?: boolean;
  matchers?: Matcher[];
  metricThreshold?: unknown;
  threshold?: unknown;
  notifications?: unknown[];
}): NormalForm {
  const matchers = sortTexted((raw.matchers ?? []).map(normaliseMatcher));
  const notifications = sortTexted(
    (raw.notifications ?? []).map((n) => normaliseNotification(n as Record<string, unknown>)),
  );
  const out: NormalAlert = {
    eventTypeName: raw.eventTypeName,
    enabled: raw.enabled ?? false,
    matchers: matchers.items,
    notifications: notifications.items,
  };
  const metricThreshold = normaliseThreshold(raw.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold);
  if (metricThreshold !== undefined) out.metricThreshold = metricThreshold;
  const threshold = normaliseThreshold(raw.threshold, THRESHOLD_DEFAULTS.threshold);
  if (threshold !== undefined) out.threshold = threshold;
  // Members in sorted order: enabled, eventTypeName, matchers, metricThreshold, notifications, threshold.
  let text = `{"enabled":${canonicalJson(out.enabled)}`;
  if (out.eventTypeName !== undefined) text += `,"eventTypeName":${canonicalJson(out.eventTypeName)}`;
  text += `,"matchers":${matchers.text}`;
  if (metricThreshold !== undefined) text += `,"metricThreshold":${canonicalJson(metricThreshold)}`;
  text += `,"notifications":${notifications.text}`;
  if (threshold !== undefined) text += `,"threshold":${canonicalJson(threshold)}`;
  return { normal: out, text: `${text}}` };
}

/** A live alert config's normal form with its canonical text. */
export function liveForm(config: AlertConfig): NormalForm {
  return normaliseBody(config as unknown as Parameters<typeof normaliseBody>[0]);
}

/** A desired body's normal form with its canonical text (secret references count as present secrets). */
export function desiredForm(body: DesiredAlertBody): NormalForm {
  return normaliseBody(body as unknown as Parameters<typeof normaliseBody>[0]);
}

/** Normalises a live alert config (as read from Ops Manager). */
export function normaliseLive(config: AlertConfig): NormalAlert {
  return liveForm(config).normal;
}

/** Normalises a desired body (secret references count as present secrets). */
export function normaliseDesired(body: DesiredAlertBody): NormalAlert {
  return desiredForm(body).normal;
}

/** Digest of a normalised alert: the `appliedDigest` kept in state and the unit of equality. */
export function normalDigest(alert: NormalAlert): string {
  return digestOf(alert);
}

/** True when two normalised alerts are equal. */
export function sameNormal(a: NormalAlert, b: NormalAlert): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A live config seen once: its normal form, canonical text and digest. */
export interface LiveView {
  normal: NormalAlert;
  text: string;
  digest: string;
}

/** The normalised view of a live config (planning computes it once per config and shares it). */
export function liveView(config: AlertConfig): LiveView {
  const { normal, text } = liveForm(config);
  return { normal, text, digest: sha256Hex(text) };
}
