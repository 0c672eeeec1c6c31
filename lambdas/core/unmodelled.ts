/**
 * Members of a live alert config that this version does not model: fields a newer Ops Manager answers. Normalisation
 * ignores them (they can never make a perpetual diff), but an update is a full PUT built from the desired body (never
 * from a GET, which would send redactions back), so it does not send them and Ops Manager may reset them. Carrying
 * them into the PUT is not safe either: a member unknown to this version may be read-only, and Ops Manager answers a
 * read-only member in a PUT with 400 ATTRIBUTE_READ_ONLY, which would fail every update of the config. So the plan
 * lists each one on the update (path only, never the value), and whoever reviews the plan sees what the write resets.
 */
import { isRecord } from '../../shared/is-record.ts';
import type { AlertConfig } from '../opsman/types.ts';
import { notificationPaths } from './alert-body.ts';
import type { FieldChange } from './model.ts';
import { THRESHOLD_MEMBERS } from './normal-parts.ts';
import { isKnownNotificationField } from './notification-types.ts';

/** Top-level members of an alert config this version reads, or knows as server-only (id, links, legacy typeName). */
const KNOWN_CONFIG_MEMBERS: ReadonlySet<string> = new Set([
  'id',
  'groupId',
  'created',
  'updated',
  'links',
  'typeName',
  'eventTypeName',
  'enabled',
  'matchers',
  'metricThreshold',
  'threshold',
  'notifications',
]);

/** Members of a matcher this version reads. */
const KNOWN_MATCHER_MEMBERS: ReadonlySet<string> = new Set(['fieldName', 'operator', 'value']);

/**
 * A copy of a live threshold (`metricThreshold`, `threshold`) or matcher with only the members this version models:
 * what a full PUT may send back of it (ignore-fields.ts keeps live members of a config). The others may be read-only,
 * as said above, and stay listed by unmodelledMembers as left out.
 */
export function modelledCopy(value: unknown, kind: 'threshold' | 'matcher'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  const known = (member: string) =>
    kind === 'threshold' ? THRESHOLD_MEMBERS.includes(member) : KNOWN_MATCHER_MEMBERS.has(member);
  for (const [member, v] of Object.entries(value as Record<string, unknown>)) {
    if (known(member)) out[member] = structuredClone(v);
  }
  return out;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function unmodelled(path: string): FieldChange {
  return { path, unmodelled: true };
}

/** The unknown members of one object (those `known` refuses that hold a value), as `<prefix><member>` paths, sorted. */
export function unknownMembers(value: unknown, known: (member: string) => boolean, prefix: string): FieldChange[] {
  if (!isRecord(value)) return [];
  const record = value as Record<string, unknown>;
  return Object.keys(record)
    .filter((member) => !known(member) && present(record[member]))
    .sort()
    .map((member) => unmodelled(`${prefix}${member}`));
}

/**
 * The members of a live alert config (top level, thresholds, matchers, notifications) that this version does not
 * model and that hold a value: what a full PUT of the desired body leaves out. Empty for a config of a known shape.
 */
export function unmodelledMembers(live: AlertConfig): FieldChange[] {
  const record = live as unknown as Record<string, unknown>;
  const out = unknownMembers(record, (m) => KNOWN_CONFIG_MEMBERS.has(m), '');
  for (const threshold of ['metricThreshold', 'threshold'] as const) {
    out.push(...unknownMembers(record[threshold], (m) => THRESHOLD_MEMBERS.includes(m), `${threshold}.`));
  }
  const matchers = Array.isArray(record.matchers) ? (record.matchers as unknown[]) : [];
  matchers.forEach((m, i) => {
    out.push(...unknownMembers(m, (member) => KNOWN_MATCHER_MEMBERS.has(member), `matchers[${i}].`));
  });
  const notifications = Array.isArray(record.notifications) ? (record.notifications as Record<string, unknown>[]) : [];
  const paths = notificationPaths(notifications);
  notifications.forEach((n, i) => {
    const typeName = String((isRecord(n) ? n.typeName : undefined) ?? '');
    out.push(...unknownMembers(n, (member) => isKnownNotificationField(member, typeName), `${paths[i]}.`));
  });
  return out;
}

/** The reason's addition for an update that leaves unmodelled members out (empty when there are none). */
export function unmodelledReason(fields: readonly FieldChange[]): string {
  const paths = fields.filter((f) => f.unmodelled === true).map((f) => f.path);
  if (paths.length === 0) return '';
  return `; the full PUT does not send ${paths.length} live member(s) this version does not model (${paths.join(', ')}): Ops Manager may reset them (edit them in Ops Manager after the apply, or upgrade opsman-gitops)`;
}

/**
 * The paths of the fields that differ between live and desired, without the unmodelled members an update lists: those
 * are what the write leaves out, not what drifted, so a drift's log line and an update fight's streak must not count
 * them (each later update would list them again and make unrelated drifts look like the same field fought over).
 */
export function differingPaths(fields: readonly FieldChange[]): string[] {
  return fields.filter((f) => f.unmodelled !== true).map((f) => f.path);
}
