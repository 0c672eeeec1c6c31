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
  /** Per sorted member: its index in `fields`, or -1 for typeName. */
  sortedField: readonly number[];
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
      sortedField: sorted.map((field) => (field === 'typeName' ? -1 : echoed.indexOf(field))),
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

/** The normalised value of echoed field `i` of a raw notification; undefined when the member is absent. */
function fieldValue(raw: Record<string, unknown>, shape: TypeShape, i: number): unknown {
  const field = shape.fields[i] as string;
  let value = raw[field];
  if (value === undefined || value === null) value = NOTIFICATION_DEFAULTS[field];
  if (value === undefined || value === null) return undefined;
  switch (shape.kinds[i]) {
    case 'secret':
      return value !== '' ? SECRET : undefined;
    case 'roles':
      return [...(value as unknown[]).map(String)].sort();
    case 'numeric':
      return num(value);
    default:
      return value;
  }
}

/** The canonical JSON of a member value: strings, numbers and booleans inline, anything else canonicalJson. */
function valueJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return canonicalJson(value);
  }
}

/** The members a threshold usually has, in canonical (sorted) order. */
const THRESHOLD_MEMBERS: readonly string[] = ['metricName', 'mode', 'operator', 'threshold', 'units'];
const THRESHOLD_PREFIXES: readonly string[] = THRESHOLD_MEMBERS.map((k) => `${JSON.stringify(k)}:`);

/** canonicalJson of a normalised threshold, without sorting its keys when they are the usual ones. */
function thresholdJson(threshold: Record<string, unknown>): string {
  const keys = Object.keys(threshold);
  for (const k of keys) if (!THRESHOLD_MEMBERS.includes(k)) return canonicalJson(threshold);
  let text = '{';
  for (let i = 0; i < THRESHOLD_MEMBERS.length; i++) {
    const value = threshold[THRESHOLD_MEMBERS[i] as string];
    if (value === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${THRESHOLD_PREFIXES[i]}${valueJson(value)}`;
  }
  return `${text}}`;
}

function normaliseNotification(raw: Record<string, unknown>): Texted<NormalNotification> {
  const typeName = String(raw.typeName ?? '');
  const out: NormalNotification = { typeName };
  const shape = shapeOf(echoedFields(typeName));
  const { fields } = shape;
  for (let i = 0; i < fields.length; i++) {
    const value = fieldValue(raw, shape, i);
    if (value !== undefined) out[fields[i] as string] = value;
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
    text += `${text.length > 1 ? ',' : ''}${prefixes[i]}${valueJson(value)}`;
  }
  return { item: out, text: `${text}}` };
}

/** The canonical text of a normalised notification, without building the notification (equal to its `text`). */
function notificationText(raw: Record<string, unknown>): string {
  const typeName = String(raw.typeName ?? '');
  const shape = shapeOf(echoedFields(typeName));
  const { sorted, prefixes, sortedField } = shape;
  let text = '{';
  for (let i = 0; i < sorted.length; i++) {
    const index = sortedField[i] as number;
    let value: unknown = typeName;
    if (index >= 0) {
      value = fieldValue(raw, shape, index);
      if (value === undefined && sorted[i] === 'roles' && typeof raw.role === 'string') value = [raw.role];
      if (value === undefined) continue;
    }
    text += `${text.length > 1 ? ',' : ''}${prefixes[i]}${valueJson(value)}`;
  }
  return `${text}}`;
}

function matcherText(item: { fieldName: unknown; operator: unknown; value: string }): string {
  // Keys already in canonical order; canonicalJson drops undefined members (a malformed live matcher).
  let text = '{';
  if (item.fieldName !== undefined) text += `"fieldName":${canonicalJson(item.fieldName)}`;
  if (item.operator !== undefined) text += `${text.length > 1 ? ',' : ''}"operator":${canonicalJson(item.operator)}`;
  return `${text}${text.length > 1 ? ',' : ''}"value":${JSON.stringify(item.value)}}`;
}

function normaliseMatcher(m: Matcher): Texted<Matcher> {
  const item = { fieldName: m.fieldName, operator: m.operator, value: String(m.value) };
  return { item, text: matcherText(item) };
}

/** The canonical text of a normalised matcher, without keeping the matcher. */
function matcherOnlyText(m: Matcher): string {
  return matcherText({ fieldName: m.fieldName, operator: m.operator, value: String(m.value) });
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The canonical text of a list of item texts, sorted. */
function listText(texts: string[]): string {
  if (texts.length > 1) texts.sort(byText);
  return `[${texts.join(',')}]`;
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

/** The raw shape normalisation reads (a live config or a desired body). */
interface RawBody {
  eventTypeName: string;
  enabled?: boolean;
  matchers?: Matcher[];
  metricThreshold?: unknown;
  threshold?: unknown;
  notifications?: unknown[];
}

/** The alert's canonical text from its parts' texts: members in sorted order. */
function bodyText(
  enabled: boolean,
  eventTypeName: string,
  matchers: string,
  metricThreshold: Record<string, unknown> | undefined,
  notifications: string,
  threshold: Record<string, unknown> | undefined,
): string {
  // Members in sorted order: enabled, eventTypeName, matchers, metricThreshold, notifications, threshold.
  let text = `{"enabled":${valueJson(enabled)}`;
  if (eventTypeName !== undefined) text += `,"eventTypeName":${valueJson(eventTypeName)}`;
  text += `,"matchers":${matchers}`;
  if (metricThreshold !== undefined) text += `,"metricThreshold":${thresholdJson(metricThreshold)}`;
  text += `,"notifications":${notifications}`;
  if (threshold !== undefined) text += `,"threshold":${thresholdJson(threshold)}`;
  return `${text}}`;
}

function normaliseBody(raw: RawBody): NormalForm {
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
  return {
    normal: out,
    text: bodyText(out.enabled, out.eventTypeName, matchers.text, metricThreshold, notifications.text, threshold),
  };
}

/**
 * The canonical text of the normal form alone: equal to `normaliseBody(raw).text` (and throws where it throws), but
 * builds no normalised notifications, matchers or lists. An in-sync config never needs more than this.
 */
function normalText(raw: RawBody): string {
  const matchers = listText((raw.matchers ?? []).map(matcherOnlyText));
  const notifications = listText((raw.notifications ?? []).map((n) => notificationText(n as Record<string, unknown>)));
  return bodyText(
    raw.enabled ?? false,
    raw.eventTypeName,
    matchers,
    normaliseThreshold(raw.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold),
    notifications,
    normaliseThreshold(raw.threshold, THRESHOLD_DEFAULTS.threshold),
  );
}

/** A live alert config's normal form with its canonical text. */
export function liveForm(config: AlertConfig): NormalForm {
  return normaliseBody(config as unknown as RawBody);
}

/** A desired body's canonical text alone (equal to `desiredForm(body).text`, cheaper). */
export function desiredText(body: DesiredAlertBody): string {
  return normalText(body as unknown as RawBody);
}

/** A live config's canonical text alone (equal to `liveForm(config).text`, cheaper). */
export function liveText(config: AlertConfig): string {
  return normalText(config as unknown as RawBody);
}

/** A desired body's normal form with its canonical text (secret references count as present secrets). */
export function desiredForm(body: DesiredAlertBody): NormalForm {
  return normaliseBody(body as unknown as RawBody);
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

/** A live view whose normal form is only built when first asked for (in-sync configs never ask). */
class LazyLiveView implements LiveView {
  private form: NormalAlert | undefined;

  constructor(
    private readonly config: AlertConfig,
    readonly text: string,
    readonly digest: string,
  ) {}

  get normal(): NormalAlert {
    if (this.form === undefined) this.form = liveForm(this.config).normal;
    return this.form;
  }
}

/**
 * The normalised view of a live config (planning computes it once per config and shares it). The text and digest
 * are computed now; the normal form on first use, from the same config (which planning never mutates).
 */
export function liveView(config: AlertConfig): LiveView {
  const text = liveText(config);
  return new LazyLiveView(config, text, sha256Hex(text));
}
