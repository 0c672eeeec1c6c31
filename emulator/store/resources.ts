/**
 * Validation of the usage and automation request bodies (server types, audit-log rotation, physical hosts), shared by
 * the routes and the seed loader. Each throws ApiError with the reference's codes.
 */
import { isRecord } from '../../shared/is-record.ts';
import { apiErrors } from '../errors.ts';
import type { AuditLogRotateRec, PhysicalHostRec, ServerTypeName } from './state.ts';
import { isServerTypeName, SERVER_TYPES } from './state.ts';

/** Throws INVALID_ATTRIBUTE for the first key not in `allowed`. */
export function onlyKeys(body: Record<string, unknown>, allowed: readonly string[], prefix = ''): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) throw apiErrors.invalidAttribute(prefix + key);
}

/**
 * A server type given as a `{name, label?}` object or, where `nameAllowed` (physical hosts, whose list answers the
 * bare name, and seeds), as a name string. The label is informative; names decide.
 */
export function parseServerType(value: unknown, attr: string, nameAllowed = true): ServerTypeName {
  if (value === undefined || value === null) throw apiErrors.missingAttribute(attr);
  // The spec: the server-type bodies take "serverType (object, required) with name (required) and label (optional)".
  if (!nameAllowed && !isRecord(value)) throw apiErrors.invalidJsonAttribute(attr);
  let name: unknown = value;
  if (isRecord(value)) {
    onlyKeys(value, ['name', 'label'], `${attr}.`);
    if (value.label !== undefined && typeof value.label !== 'string')
      throw apiErrors.invalidJsonAttribute(`${attr}.label`);
    if (value.name === undefined || value.name === null) throw apiErrors.missingAttribute(`${attr}.name`);
    name = value.name;
  }
  if (typeof name !== 'string') throw apiErrors.invalidJsonAttribute(attr);
  if (!isServerTypeName(name)) throw apiErrors.invalidEnum(name, attr);
  return name;
}

/** The object form `{name, label}` of a server type. */
export function serverTypeObject(name: ServerTypeName): { name: ServerTypeName; label: string } {
  return { name, label: SERVER_TYPES[name] };
}

const ROTATE_FIELDS: Record<keyof AuditLogRotateRec, { integer: boolean; min: number; max?: number }> = {
  sizeThresholdMB: { integer: false, min: Number.MIN_VALUE },
  timeThresholdHrs: { integer: true, min: 1 },
  numUncompressed: { integer: true, min: 1 },
  percentOfDiskspace: { integer: false, min: 0, max: 1 },
  numTotal: { integer: true, min: 0 },
};

/**
 * Body of PUT auditLogRotateConfig: `{}` disables rotation (returns null); otherwise sizeThresholdMB and
 * timeThresholdHrs are required. Only the fields sent are stored.
 */
export function validateAuditLogRotate(body: unknown): AuditLogRotateRec | null {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  onlyKeys(body, Object.keys(ROTATE_FIELDS));
  const out: AuditLogRotateRec = {};
  for (const [field, rule] of Object.entries(ROTATE_FIELDS) as [
    keyof AuditLogRotateRec,
    (typeof ROTATE_FIELDS)['numTotal'],
  ][]) {
    const v = body[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || (rule.integer && !Number.isInteger(v))) {
      throw apiErrors.invalidJsonAttribute(field);
    }
    if (v < rule.min || (rule.max !== undefined && v > rule.max)) throw apiErrors.invalidJsonAttribute(field);
    out[field] = v;
  }
  if (Object.keys(out).length === 0) return null;
  if (out.sizeThresholdMB === undefined) throw apiErrors.missingAttribute('sizeThresholdMB');
  if (out.timeThresholdHrs === undefined) throw apiErrors.missingAttribute('timeThresholdHrs');
  return out;
}

/** Body of POST /usage/groups and PUT /usage/groups/{id}; `groupExists` checks virtual hosts' projects. */
export function validatePhysicalHost(
  body: unknown,
  id: string,
  groupExists: (groupId: string) => boolean,
): PhysicalHostRec {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  onlyKeys(body, ['id', 'name', 'serverType', 'virtualHosts', 'hosts', 'links']);
  if (body.id !== undefined && body.id !== id) throw apiErrors.readOnly('id');
  if (body.name === undefined || body.name === null) throw apiErrors.missingAttribute('name');
  if (typeof body.name !== 'string' || body.name.trim() === '') throw apiErrors.invalidJsonAttribute('name');
  const serverType = parseServerType(body.serverType, 'serverType');
  const list = body.virtualHosts ?? body.hosts;
  if (list === undefined || list === null) throw apiErrors.missingAttribute('virtualHosts');
  if (!Array.isArray(list)) throw apiErrors.invalidJsonAttribute('virtualHosts');
  const hosts = list.map((h, i) => {
    const attr = `virtualHosts[${i}]`;
    if (!isRecord(h)) throw apiErrors.invalidJsonAttribute(attr);
    onlyKeys(h, ['groupId', 'hostname'], `${attr}.`);
    const out: { groupId?: string; hostname?: string } = {};
    for (const key of ['groupId', 'hostname'] as const) {
      const v = h[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw apiErrors.invalidJsonAttribute(`${attr}.${key}`);
      out[key] = v;
    }
    if (out.groupId !== undefined && !groupExists(out.groupId)) throw apiErrors.groupNotFound(out.groupId);
    return out;
  });
  return { id, name: body.name, serverType, hosts };
}
