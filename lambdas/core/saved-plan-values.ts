/**
 * Shape checks of what a saved plan's change carries besides its identity: its `fields` (read by the streak bookkeeping
 * and the renderers) and its `before`/`after` for its kind (what apply sends and records: an alert config's desired
 * body, a server type name, a rotation config, a pinned manifest). A malformed one is refused by path before any write,
 * instead of a TypeError after some of the plan's writes (a rotation written, then its record failing), or a body Ops
 * Manager was never meant to receive. Problems name the path and what was expected, never the value found.
 */
import { isRecord } from '../../shared/is-record.ts';
import { IGNORABLE_FIELDS } from './desired/enums.ts';
import type { SecretNote } from './model.ts';
import { isSecretField } from './notification-types.ts';
import { ROTATION_FIELDS, SERVER_TYPE_LABELS } from './plan-singletons.ts';
import { listProblem, stringMembers } from './saved-plan-members.ts';

/** Every SecretNote (the type checker keeps the list complete). */
const SECRET_NOTES: readonly string[] = Object.keys({
  changed: true,
  'removed on live': true,
  added: true,
  'set on live, not in desired': true,
  'changed on live': true,
  set: true,
} satisfies Record<SecretNote, true>);
const SERVER_TYPES: readonly string[] = Object.keys(SERVER_TYPE_LABELS);
const ROTATION: ReadonlySet<string> = new Set(ROTATION_FIELDS);
/** Alert-config actions that send a desired body. */
const NEEDS_BODY: ReadonlySet<string> = new Set(['create', 'update', 'adopt']);
/** The actions a singleton change can have: it is written (update), in sync, drifting or blocked, nothing else. */
const SINGLETON_ACTIONS: ReadonlySet<string> = new Set(['update', 'noop', 'drift', 'blocked']);

function fieldProblem(f: unknown, at: string): string | undefined {
  if (!isRecord(f)) return `${at} is not an object`;
  if (typeof f.path !== 'string') return `${at}.path is not a string`;
  if (f.secret !== undefined && typeof f.secret !== 'boolean') return `${at}.secret is not true or false`;
  if (f.note !== undefined && (typeof f.note !== 'string' || !SECRET_NOTES.includes(f.note))) {
    return `${at}.note is not one of ${SECRET_NOTES.join(', ')}`;
  }
  if (f.item !== undefined && (typeof f.item !== 'number' || !Number.isSafeInteger(f.item) || f.item < 0)) {
    return `${at}.item is not a whole number from 0`;
  }
  return f.unmodelled === undefined || f.unmodelled === true ? undefined : `${at}.unmodelled is not true`;
}

/** What is wrong with a change's `fields` (a list of field changes), or undefined; paths start at `fields`. */
export function fieldsProblem(fields: unknown): string | undefined {
  return listProblem(fields, 'fields', fieldProblem);
}

const objectItem = (x: unknown, at: string) => (isRecord(x) ? undefined : `${at} is not an object`);
const IGNORABLE: ReadonlySet<unknown> = new Set(IGNORABLE_FIELDS);
const ignorableItem = (x: unknown, at: string) =>
  IGNORABLE.has(x) ? undefined : `${at} is not one of ${IGNORABLE_FIELDS.join(', ')}`;

function notificationProblem(n: unknown, at: string): string | undefined {
  if (!isRecord(n)) return `${at} is not an object`;
  if (typeof n.typeName !== 'string') return `${at}.typeName is not a string`;
  // A secret travels in a plan as a reference only: a value here would be sent as it is, and shown.
  const secret = Object.keys(n).find(
    (field) =>
      isSecretField(field) && n[field] !== undefined && !(isRecord(n[field]) && typeof n[field].secretRef === 'string'),
  );
  return secret === undefined ? undefined : `${at}.${secret} is not a secret reference ({secretRef})`;
}

/** An alert config's desired body (alert-body.ts DesiredAlertBody), as apply builds its request from it. */
function alertBodyProblem(body: Record<string, unknown>): string | undefined {
  if (typeof body.eventTypeName !== 'string') return 'after.eventTypeName is not a string';
  if (typeof body.enabled !== 'boolean') return 'after.enabled is not true or false';
  for (const name of ['metricThreshold', 'threshold'] as const) {
    if (body[name] !== undefined && !isRecord(body[name])) return `after.${name} is not an object`;
  }
  // No matchers is none (the request then carries none); `enabled` is required: Ops Manager's default is false.
  if (body.matchers !== undefined) {
    const problem = listProblem(body.matchers, 'after.matchers', objectItem);
    if (problem !== undefined) return problem;
  }
  // Apply records the digest and verifies without the members a body ignores (ignore-fields.ts).
  if (body.ignoreFields !== undefined) {
    const problem = listProblem(body.ignoreFields, 'after.ignoreFields', ignorableItem);
    if (problem !== undefined) return problem;
  }
  return listProblem(body.notifications, 'after.notifications', notificationProblem);
}

function rotationProblem(v: unknown, at: string): string | undefined {
  if (!isRecord(v)) return `${at} is not an object`;
  for (const [field, x] of Object.entries(v)) {
    // Sent as they are by the rotation's PUT: a member it does not model would reach Ops Manager.
    if (!ROTATION.has(field)) return `${at} has a member that is not a rotation field (${ROTATION_FIELDS.join(', ')})`;
    if (typeof x !== 'number' || !Number.isFinite(x)) return `${at}.${field} is not a number`;
  }
  return undefined;
}

/**
 * What is wrong with a change's action for its kind and with its `before`/`after`, or undefined. An alert config's
 * `after` is its desired body (required to create, update or adopt), its `before` the normalised live config; a
 * singleton is only updated (or in sync, drifting, blocked), and its `after` is what the update writes (required) and
 * what an in-sync change records: a server type name, the rotation's fields, the pinned manifest's path and sha256.
 */
export function valuesProblem(c: Record<string, unknown>): string | undefined {
  const { kind, action, before, after } = c as { kind: string; action: string; before?: unknown; after?: unknown };
  if (kind === 'alertConfig') {
    if (before !== undefined && !isRecord(before)) return 'before is not an object';
    if (after === undefined) return NEEDS_BODY.has(action) ? `${action} without a desired body (after)` : undefined;
    return isRecord(after) ? alertBodyProblem(after) : 'after is not an object';
  }
  if (!SINGLETON_ACTIONS.has(action)) return `${action} is not an action of ${kind} (update, noop, drift, blocked)`;
  if (after === undefined) return action === 'update' ? `update without a desired value (after)` : undefined;
  if (kind === 'defaultServerType') {
    return typeof after === 'string' && SERVER_TYPES.includes(after)
      ? undefined
      : `after is not a server type (${SERVER_TYPES.join(', ')})`;
  }
  if (kind === 'auditLogRotation') {
    if (before !== undefined && !isRecord(before)) return 'before is not an object';
    return rotationProblem(after, 'after');
  }
  return isRecord(after) ? stringMembers(after, 'after', ['path', 'sha256']) : 'after is not an object';
}
