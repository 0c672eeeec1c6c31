/**
 * Validation of an alert configuration body (POST, PUT, and seed entries), producing the stored shape. Errors are the
 * reference's: unknown field INVALID_ATTRIBUTE, wrong type INVALID_JSON_ATTRIBUTE, missing MISSING_ATTRIBUTE, bad enum
 * INVALID_ENUM_VALUE, read-only ATTRIBUTE_READ_ONLY, plus the alert-specific codes.
 */
import { isRecord } from '../../shared/is-record.ts';
import { apiErrors } from '../errors.ts';
import { isObjectId } from '../ids.ts';
import type { StoredAlertConfig, StoredNotification } from '../store/state.ts';
import {
  EVENT_TYPE_NAMES,
  MATCHER_FIELDS,
  MATCHER_OPERATORS,
  METRIC_EVENT_TYPE,
  THRESHOLD_EVENT_TYPES,
  THRESHOLD_OPERATORS,
  UNITS,
} from './catalog.ts';
import { validateNotification } from './validate-notification.ts';

/** How a body is being validated. */
export interface AlertValidationContext {
  /** The project of the path. */
  groupId: string;
  /** create (POST), replace (PUT: `previous` is the stored config), or seed (ids and timestamps allowed). */
  mode: 'create' | 'replace' | 'seed';
  previous?: StoredAlertConfig;
  /** Generates notifier ids. */
  newId: () => string;
}

/** The validated content of an alert configuration (without id, groupId and timestamps). */
export interface ValidatedAlert {
  enabled: boolean;
  eventTypeName: string;
  /** Deprecated and ignored (the spec), kept only to be echoed as sent. */
  typeName?: string;
  matchers: StoredAlertConfig['matchers'];
  metricThreshold?: Record<string, unknown>;
  threshold?: Record<string, unknown>;
  notifications: StoredNotification[];
}

const TOP_FIELDS = new Set([
  'enabled',
  'eventTypeName',
  'matchers',
  'metricThreshold',
  'threshold',
  'notifications',
  'typeName',
  'id',
  'groupId',
  'created',
  'updated',
  'links',
]);

function checkReadOnly(body: Record<string, unknown>, ctx: AlertValidationContext): void {
  if (ctx.mode === 'seed') return;
  for (const field of ['id', 'groupId', 'created', 'updated'] as const) {
    if (!(field in body)) continue;
    const stored = field === 'groupId' ? ctx.groupId : ctx.previous?.[field];
    if (body[field] !== stored) throw apiErrors.readOnly(field);
  }
}

function checkObject(value: unknown, attr: string, allowed: readonly string[]): Record<string, unknown> {
  if (!isRecord(value)) throw apiErrors.invalidJsonAttribute(attr);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw apiErrors.invalidAttribute(`${attr}.${key}`);
  }
  return value;
}

function enumString(value: unknown, attr: string, allowed: ReadonlySet<string>, required = true): string | undefined {
  if (value === undefined || value === null) {
    if (required) throw apiErrors.missingAttribute(attr);
    return undefined;
  }
  if (typeof value !== 'string') throw apiErrors.invalidJsonAttribute(attr);
  if (!allowed.has(value)) throw apiErrors.invalidEnum(value, attr);
  return value;
}

function finiteNumber(value: unknown, attr: string): number {
  if (value === undefined || value === null) throw apiErrors.missingAttribute(attr);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw apiErrors.invalidJsonAttribute(attr);
  return value;
}

function validateMatchers(value: unknown): StoredAlertConfig['matchers'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw apiErrors.invalidJsonAttribute('matchers');
  return value.map((raw, i) => {
    const attr = `matchers[${i}]`;
    const m = checkObject(raw, attr, ['fieldName', 'operator', 'value']);
    const fieldName = enumString(m.fieldName, `${attr}.fieldName`, MATCHER_FIELDS) as string;
    const operator = enumString(m.operator, `${attr}.operator`, MATCHER_OPERATORS) as string;
    if (m.value === undefined || m.value === null) throw apiErrors.missingAttribute(`${attr}.value`);
    if (typeof m.value !== 'string') throw apiErrors.invalidJsonAttribute(`${attr}.value`);
    return { fieldName, operator, value: m.value };
  });
}

function validateMetricThreshold(value: unknown): Record<string, unknown> {
  const attr = 'metricThreshold';
  const t = checkObject(value, attr, ['metricName', 'mode', 'operator', 'threshold', 'units']);
  if (t.metricName === undefined || t.metricName === null) throw apiErrors.missingAttribute(`${attr}.metricName`);
  if (typeof t.metricName !== 'string') throw apiErrors.invalidJsonAttribute(`${attr}.metricName`);
  if (!/^[A-Z][A-Z0-9_]*$/.test(t.metricName)) throw apiErrors.invalidEnum(t.metricName, `${attr}.metricName`);
  if (t.mode === 'TOTAL') throw apiErrors.totalModeDeprecated();
  const mode = enumString(t.mode, `${attr}.mode`, new Set(['AVERAGE']), false) ?? 'AVERAGE';
  const operator = enumString(t.operator, `${attr}.operator`, THRESHOLD_OPERATORS) as string;
  const threshold = finiteNumber(t.threshold, `${attr}.threshold`);
  const units = enumString(t.units, `${attr}.units`, UNITS, false) ?? 'RAW';
  return { metricName: t.metricName, mode, operator, threshold, units };
}

function validateThreshold(value: unknown): Record<string, unknown> {
  const t = checkObject(value, 'threshold', ['operator', 'threshold', 'units']);
  const operator = enumString(t.operator, 'threshold.operator', THRESHOLD_OPERATORS) as string;
  const threshold = finiteNumber(t.threshold, 'threshold.threshold');
  const units = enumString(t.units, 'threshold.units', UNITS, false) ?? 'RAW';
  return { operator, threshold, units };
}

/** Validates a body and returns the stored content; throws ApiError with the reference's code on the first problem. */
export function validateAlertConfig(body: unknown, ctx: AlertValidationContext): ValidatedAlert {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  for (const key of Object.keys(body)) if (!TOP_FIELDS.has(key)) throw apiErrors.invalidAttribute(key);
  checkReadOnly(body, ctx);
  if (body.typeName !== undefined && typeof body.typeName !== 'string')
    throw apiErrors.invalidJsonAttribute('typeName');
  if (body.links !== undefined && !Array.isArray(body.links)) throw apiErrors.invalidJsonAttribute('links');
  if (ctx.mode === 'seed' && body.id !== undefined && !isObjectId(body.id)) throw apiErrors.invalidJsonAttribute('id');
  if (body.enabled !== undefined && body.enabled !== null && typeof body.enabled !== 'boolean') {
    throw apiErrors.invalidJsonAttribute('enabled');
  }
  const eventTypeName = enumString(body.eventTypeName, 'eventTypeName', EVENT_TYPE_NAMES) as string;
  const matchers = validateMatchers(body.matchers);
  const result: ValidatedAlert = { enabled: body.enabled === true, eventTypeName, matchers, notifications: [] };
  if (typeof body.typeName === 'string') result.typeName = body.typeName;
  const hasMetric = body.metricThreshold !== undefined && body.metricThreshold !== null;
  if (eventTypeName === METRIC_EVENT_TYPE && !hasMetric) throw apiErrors.missingMetricThreshold(eventTypeName);
  if (eventTypeName !== METRIC_EVENT_TYPE && hasMetric) throw apiErrors.metricThresholdPresent(eventTypeName);
  if (hasMetric) result.metricThreshold = validateMetricThreshold(body.metricThreshold);
  const hasThreshold = body.threshold !== undefined && body.threshold !== null;
  if (THRESHOLD_EVENT_TYPES.has(eventTypeName) && !hasThreshold) throw apiErrors.missingThreshold(eventTypeName);
  if (!THRESHOLD_EVENT_TYPES.has(eventTypeName) && hasThreshold) throw apiErrors.thresholdPresent(eventTypeName);
  if (hasThreshold) result.threshold = validateThreshold(body.threshold);
  if (body.notifications === undefined || body.notifications === null) throw apiErrors.missingNotifications();
  if (!Array.isArray(body.notifications)) throw apiErrors.invalidJsonAttribute('notifications');
  if (body.notifications.length === 0) throw apiErrors.missingNotifications();
  const used = new Set<string>();
  result.notifications = body.notifications.map((n, i) => {
    const stored = validateNotification(n, i, ctx.previous?.notifications ?? [], used, ctx);
    used.add(stored.notifierId);
    return stored;
  });
  return result;
}
