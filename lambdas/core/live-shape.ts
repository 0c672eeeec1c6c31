/**
 * Shapes of live answers that planning can use. Ops Manager's JSON is checked before it is normalised, so a broken
 * answer fails its target with a message naming the object and the field (read-live.ts throws LIVE_MALFORMED) instead
 * of surfacing as a TypeError somewhere in planning.
 */
import { isRecord } from '../../shared/is-record.ts';
import type { OpsManagerEvent } from '../opsman/types.ts';
import { ROTATION_FIELDS } from './plan-singletons.ts';
import { parseTimestamp } from './timestamp.ts';

/** Why one notification or matcher of an answer cannot be normalised, or undefined. */
function itemProblem(list: 'matchers' | 'notifications', item: unknown, at: string): string | undefined {
  if (!isRecord(item)) return `has ${at} that is not an object`;
  const record = item as Record<string, unknown>;
  if (list === 'matchers') {
    // Normalisation writes a matcher's value as text: an object's text is not the value it stands for.
    if (typeof record.value === 'object' && record.value !== null) return `has ${at}.value that is not a scalar`;
    return undefined;
  }
  if (typeof record.typeName !== 'string') return `has ${at}.typeName that is not a string`;
  const roles = record.roles;
  if (roles !== undefined && roles !== null && !(Array.isArray(roles) && roles.every((r) => typeof r === 'string')))
    return `has ${at}.roles that is not a list of strings`;
  return undefined;
}

/**
 * Why a listed alert config cannot be planned from, or undefined when its shape is usable: planning keys configs by
 * id, and normalisation reads `notifications` and `matchers` as lists of objects, each notification's `typeName` as
 * text and its `roles` as a list of texts. Any other member may hold any JSON value (it is compared as it is).
 */
export function alertConfigProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'is not an object';
  const config = value as Record<string, unknown>;
  if (typeof config.id !== 'string' || config.id === '') return 'has no id';
  if (typeof config.eventTypeName !== 'string') return 'has no eventTypeName';
  for (const list of ['matchers', 'notifications'] as const) {
    const items = config[list];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) return `has ${list} that is not a list`;
    for (let i = 0; i < items.length; i++) {
      const problem = itemProblem(list, items[i], `${list}[${i}]`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/**
 * Why an audit-log rotation answer cannot be compared, or undefined when it can: an object whose rotation fields are
 * absent, null, numbers, or numeric texts (what `Number` reads back as the same number).
 */
export function auditLogRotationProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'is not an object';
  const config = value as Record<string, unknown>;
  for (const field of ROTATION_FIELDS) {
    const v = config[field];
    if (v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v))) continue;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) continue;
    return `has ${field} that is not a number`;
  }
  return undefined;
}

/** Text members of an event that attribution may read besides `id`, `created` and `eventTypeName`. */
const OPTIONAL_TEXT = [
  'groupId',
  'orgId',
  'alertConfigId',
  'username',
  'userId',
  'publicKey',
  'apiKeyId',
  'remoteAddress',
] as const;

/**
 * The event as attribution can use it, or undefined: `id`, `created` and `eventTypeName` must be text (they are
 * reported, sorted and matched) and `created` must read as a time (events are ordered by instant), and any other
 * member it reads that is not text, or is blank, is left out (an answer's odd value never reaches a report).
 */
export function usableEvent(event: unknown): OpsManagerEvent | undefined {
  if (event === null || typeof event !== 'object') return undefined;
  const e = event as Record<string, unknown>;
  if (typeof e.id !== 'string' || typeof e.created !== 'string' || typeof e.eventTypeName !== 'string')
    return undefined;
  if (parseTimestamp(e.created) === null) return undefined;
  const out: Record<string, unknown> = { id: e.id, created: e.created, eventTypeName: e.eventTypeName };
  // Blank text names no one: kept, `username: ""` would hide the `userId` beside it and print as an empty author.
  for (const field of OPTIONAL_TEXT) {
    const value = e[field];
    if (typeof value === 'string' && value.trim() !== '') out[field] = value;
  }
  return out as unknown as OpsManagerEvent;
}
