/**
 * The parts of normalisation (normalise.ts): thresholds with server defaults, notifications reduced to the fields their
 * type echoes (secrets as SECRET), matchers, and the canonical text of each, written directly so that planning never
 * serialises a normalised value twice. Every text here equals canonicalJson of the value it describes.
 */
import type { Matcher } from '../opsman/types.ts';
import { canonicalJson } from './canonical.ts';
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

/**
 * The members that make a threshold a condition. The spec says `threshold` is "returned for non-metric alerts", so a
 * server may answer an alert that has none with `{}`, null members or units alone: without a metric, an operator or a
 * value nothing can trigger, so that object is no threshold (the desired schema requires these members, so a desired
 * threshold is never dropped here).
 */
const CONDITION_MEMBERS: readonly string[] = ['metricName', 'operator', 'threshold'];

/**
 * A threshold with server defaults filled and its value numeric; undefined when absent, not an object, or carrying no
 * condition member (see CONDITION_MEMBERS). Only the members this version models (THRESHOLD_MEMBERS) are kept: a member
 * a newer Ops Manager adds to its answer (say `scale`) cannot be declared in the desired state, so comparing it would
 * make a config differ on every run (a perpetual update) and an equal unowned one never be adopted.
 */
export function normaliseThreshold(
  value: unknown,
  defaults: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (!CONDITION_MEMBERS.some((k) => record[k] !== undefined && record[k] !== null)) return undefined;
  // Copied key by key: adding members to an object made by spread is many times slower than to a built one.
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(defaults)) out[k] = defaults[k];
  for (const k of Object.keys(record)) {
    const v = record[k];
    if (v === undefined || v === null || !THRESHOLD_MEMBERS.includes(k)) continue;
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
export interface Texted<T> {
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
    case 'roles': {
      // An empty list names no role: the same as none (a server may answer `roles: []` on every role-based
      // notification; the desired state cannot write one, so it would otherwise differ on every run).
      const roles = (value as unknown[]).map(String);
      return roles.length > 0 ? roles.sort() : undefined;
    }
    case 'numeric':
      return num(value);
    default:
      return value;
  }
}

/** The canonical JSON of a member value: strings, numbers and booleans inline, anything else canonicalJson. */
export function valueJson(value: unknown): string {
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

/** The members of a threshold this version models, in canonical (sorted) order: any other is dropped on reading. */
export const THRESHOLD_MEMBERS: readonly string[] = ['metricName', 'mode', 'operator', 'threshold', 'units'];
const THRESHOLD_PREFIXES: readonly string[] = THRESHOLD_MEMBERS.map((k) => `${JSON.stringify(k)}:`);

/** canonicalJson of a normalised threshold, without sorting its keys when they are the usual ones. */
export function thresholdJson(threshold: Record<string, unknown>): string {
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

/**
 * A live or desired notification in normal form (only the members its type echoes, `role` read as `roles`) with its
 * canonical text, written in sorted member order as `canonicalJson` would.
 */
export function normaliseNotification(raw: Record<string, unknown>): Texted<NormalNotification> {
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
export function notificationText(raw: Record<string, unknown>): string {
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

/** A matcher in normal form (its value as a string) with its canonical text. */
export function normaliseMatcher(m: Matcher): Texted<Matcher> {
  const item = { fieldName: m.fieldName, operator: m.operator, value: String(m.value) };
  return { item, text: matcherText(item) };
}

/** The canonical text of a normalised matcher, without keeping the matcher. */
export function matcherOnlyText(m: Matcher): string {
  return matcherText({ fieldName: m.fieldName, operator: m.operator, value: String(m.value) });
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The canonical text of a list of item texts, sorted. */
export function listText(texts: string[]): string {
  if (texts.length > 1) texts.sort(byText);
  return `[${texts.join(',')}]`;
}

/** Sorts by canonical text; returns the items and the canonical text of the sorted list. */
export function sortTexted<T>(entries: Texted<T>[]): { items: T[]; text: string } {
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
