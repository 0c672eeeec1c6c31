/**
 * Validation of one notification of an alert configuration. Unknown fields are rejected. A field of another type that
 * the spec lists among those a response returns "when they were set" is kept and echoed (the real product drops
 * some of them; clients must compare only a type's own fields either way). `webhookSecret` is refused unless the same
 * notification declares `webhookUrl` (the spec). On PUT a secret field that is absent (with a known notifierId) or
 * that equals the redacted mask of the stored value keeps the stored value.
 */
import { isRecord } from '../../shared/is-record.ts';
import { apiErrors } from '../errors.ts';
import { isObjectId } from '../ids.ts';
import type { StoredNotification } from '../store/state.ts';
import {
  BOOLEAN_NOTIFICATION_FIELDS,
  ECHOED_WHEN_SET,
  GROUP_NOTIFICATION_ROLES,
  KNOWN_NOTIFICATION_FIELDS,
  notificationTypeSpec,
  ORG_NOTIFICATION_ROLES,
  SECRET_FIELDS,
} from './catalog.ts';
import { redactField } from './redact.ts';

const INTEGER_FIELDS = new Set(['delayMin', 'intervalMin']);

/**
 * The largest delayMin/intervalMin: the real product holds them in a Java int, and its parser (Jackson) refuses a
 * larger number as not matching the expected format. Without this bound `1e300` passed Number.isInteger and was stored.
 */
export const MAX_NOTIFICATION_MINUTES = 2_147_483_647;

function checkTypes(n: Record<string, unknown>, attr: string): void {
  for (const [key, value] of Object.entries(n)) {
    if (!KNOWN_NOTIFICATION_FIELDS.has(key)) throw apiErrors.invalidAttribute(`${attr}.${key}`);
    if (value === null || value === undefined) continue;
    const name = `${attr}.${key}`;
    if (BOOLEAN_NOTIFICATION_FIELDS.has(key)) {
      if (typeof value !== 'boolean') throw apiErrors.invalidJsonAttribute(name);
    } else if (INTEGER_FIELDS.has(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_NOTIFICATION_MINUTES)
        throw apiErrors.invalidJsonAttribute(name);
    } else if (key === 'roles') {
      if (!Array.isArray(value) || value.some((r) => typeof r !== 'string')) throw apiErrors.invalidJsonAttribute(name);
    } else if (typeof value !== 'string') {
      throw apiErrors.invalidJsonAttribute(name);
    }
  }
}

function counterpartOf(
  n: Record<string, unknown>,
  typeName: string,
  previous: readonly StoredNotification[],
): StoredNotification | undefined {
  if (typeof n.notifierId !== 'string') return undefined;
  return previous.find((p) => p.notifierId === n.notifierId && p.typeName === typeName);
}

/** The stored value of a secret field: the sent value, or the stored one when the sent value is absent or its mask. */
function resolveSecret(
  field: string,
  sent: unknown,
  typeName: string,
  counterpart: StoredNotification | undefined,
  previous: readonly StoredNotification[],
): unknown {
  if (counterpart && typeof counterpart[field] === 'string') {
    if (sent === undefined || sent === null || redactField(field, counterpart[field]) === sent)
      return counterpart[field];
  }
  if (typeof sent === 'string' && sent.includes('*')) {
    const match = previous.find(
      (p) => p.typeName === typeName && typeof p[field] === 'string' && redactField(field, p[field]) === sent,
    );
    if (match) return match[field];
  }
  return sent;
}

function validateRoles(n: Record<string, unknown>, attr: string, allowed: ReadonlySet<string>): string[] | undefined {
  const roles = Array.isArray(n.roles) ? [...(n.roles as string[])] : undefined;
  if (typeof n.role === 'string') {
    if (roles === undefined) return validateRoles({ roles: [n.role] }, attr, allowed);
    if (!roles.includes(n.role)) roles.unshift(n.role);
  }
  if (roles === undefined) return undefined;
  if (roles.length === 0) throw apiErrors.missingRoles();
  for (const role of roles) if (!allowed.has(role)) throw apiErrors.invalidEnum(role, `${attr}.roles`);
  return [...new Set(roles)];
}

function checkValueFormats(out: StoredNotification, attr: string): void {
  for (const field of ['webhookUrl', 'microsoftTeamsWebhookUrl']) {
    const v = out[field];
    if (typeof v === 'string' && !v.includes('*') && !/^https?:\/\/[^/\s?#]+(\/\S*)?$/.test(v)) {
      throw apiErrors.invalidJsonAttribute(`${attr}.${field}`);
    }
  }
  if (typeof out.emailAddress === 'string' && !/^[^@\s]+@[^@\s]+$/.test(out.emailAddress)) {
    throw apiErrors.invalidJsonAttribute(`${attr}.emailAddress`);
  }
  if (out.opsGenieRegion !== undefined && out.opsGenieRegion !== 'US' && out.opsGenieRegion !== 'EU') {
    throw apiErrors.invalidEnum(String(out.opsGenieRegion), `${attr}.opsGenieRegion`);
  }
  if (out.teamId !== undefined && !isObjectId(out.teamId)) throw apiErrors.invalidJsonAttribute(`${attr}.teamId`);
}

/** Validates notification `index`; `used` holds notifier ids already taken in this configuration. */
export function validateNotification(
  raw: unknown,
  index: number,
  previous: readonly StoredNotification[],
  used: ReadonlySet<string>,
  ctx: { mode: 'create' | 'replace' | 'seed'; newId: () => string },
): StoredNotification {
  const attr = `notifications[${index}]`;
  if (!isRecord(raw)) throw apiErrors.invalidJsonAttribute(attr);
  checkTypes(raw, attr);
  if (raw.typeName === undefined || raw.typeName === null) throw apiErrors.missingAttribute(`${attr}.typeName`);
  const typeName = raw.typeName as string;
  const spec = notificationTypeSpec(typeName);
  if (!spec) throw apiErrors.unsupportedNotification(typeName);
  const sent = (field: string) => raw[field] !== undefined && raw[field] !== null;
  // The spec: webhookSecret "can be declared explicitly only in a request that also declares webhookUrl".
  if (sent('webhookSecret') && !sent('webhookUrl')) throw apiErrors.invalidAttribute(`${attr}.webhookSecret`);
  const delayMin = (raw.delayMin as number | undefined | null) ?? 0;
  if (delayMin < 0) throw apiErrors.invalidJsonAttribute(`${attr}.delayMin`);
  const counterpart = counterpartOf(raw, typeName, previous);
  let notifierId = counterpart?.notifierId;
  if (!notifierId && ctx.mode === 'seed' && isObjectId(raw.notifierId) && !used.has(raw.notifierId)) {
    notifierId = raw.notifierId;
  }
  const out: StoredNotification = { typeName, notifierId: notifierId ?? ctx.newId(), delayMin };
  if (spec.interval) {
    const interval = (raw.intervalMin as number | undefined | null) ?? 60;
    if (interval < 5) throw apiErrors.intervalOutOfRange();
    out.intervalMin = interval;
  } else if (raw.intervalMin !== undefined && raw.intervalMin !== null) {
    throw apiErrors.invalidAttribute(`${attr}.intervalMin`);
  }
  for (const field of spec.own) {
    let value: unknown = raw[field];
    if (field === 'roles') {
      value = validateRoles(raw, attr, typeName === 'ORG' ? ORG_NOTIFICATION_ROLES : GROUP_NOTIFICATION_ROLES);
    } else if (SECRET_FIELDS.has(field)) value = resolveSecret(field, value, typeName, counterpart, previous);
    if (BOOLEAN_NOTIFICATION_FIELDS.has(field)) value = value ?? false;
    if (spec.required.includes(field) && (value === undefined || value === null || value === '')) {
      throw apiErrors.missingAttribute(`${attr}.${field}`);
    }
    if (value !== undefined && value !== null) out[field] = value;
  }
  // The spec: "A role is returned as `roles`". A role sent to a type that has no roles of its own (EMAIL, SLACK, ...)
  // is kept and echoed like the other fields returned "when they were set", rather than silently dropped.
  if (!spec.own.includes('roles') && (sent('role') || sent('roles'))) {
    out.roles = validateRoles(raw, attr, GROUP_NOTIFICATION_ROLES);
  }
  for (const field of ECHOED_WHEN_SET) {
    if (spec.own.includes(field) || !sent(field)) continue;
    out[field] = SECRET_FIELDS.has(field)
      ? resolveSecret(field, raw[field], typeName, counterpart, previous)
      : raw[field];
  }
  checkValueFormats(out, attr);
  return out;
}
