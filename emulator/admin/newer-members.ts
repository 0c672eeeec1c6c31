/**
 * Members a newer Ops Manager would answer (admin API only, never the public API): an alert config can be given
 * members and values this emulator's own catalog does not have (a new top-level field, a new enum value, a notification
 * member), so that a client's forward compatibility can be tested against what a later release returns.
 *
 * They are answered on every read of the config as if the server stored them. Like a real server that knows the
 * member, a PUT (a full replacement) that does not send them resets them (they are gone from the answer), while a PATCH
 * of `enabled` keeps them. They live in memory only: a reset or a restart forgets them, and no data file holds them.
 */
import { isRecord } from '../../shared/is-record.ts';
import { apiErrors } from '../errors.ts';
import type { StoredAlertConfig } from '../store/state.ts';

/** What a newer server answers over the stored config: top-level members, and members per notification index. */
export interface NewerMembers {
  /** Merged over the answer; a plain-object value (a threshold) is merged one level deep. */
  config: Record<string, unknown>;
  /** Merged over the answered notification of the same index; null leaves that one as it is. */
  notifications: (Record<string, unknown> | null)[];
}

/** Newer members by stored config (a PUT stores a new object, so it forgets them; PATCH carries them over). */
const byConfig = new WeakMap<StoredAlertConfig, NewerMembers>();

/**
 * Parses the admin body `{config?: {...}, notifications?: [{...} | null]}`; throws INVALID_ATTRIBUTE for another member,
 * INVALID_JSON_ATTRIBUTE for one of the wrong type.
 */
export function parseNewerMembers(body: unknown): NewerMembers {
  if (!isRecord(body)) throw apiErrors.invalidJson();
  // A misspelt member (`notification`) would otherwise be dropped without a word, and the test see no newer members.
  for (const key of Object.keys(body))
    if (key !== 'config' && key !== 'notifications') throw apiErrors.invalidAttribute(key);
  const config = body.config ?? {};
  if (!isRecord(config)) throw apiErrors.invalidJsonAttribute('config');
  const notifications = body.notifications ?? [];
  if (!Array.isArray(notifications) || notifications.some((n) => n !== null && !isRecord(n)))
    throw apiErrors.invalidJsonAttribute('notifications');
  return { config, notifications: notifications as (Record<string, unknown> | null)[] };
}

/** Gives a stored config the members a newer server would answer (replacing any given before). */
export function setNewerMembers(cfg: StoredAlertConfig, members: NewerMembers): void {
  byConfig.set(cfg, members);
}

/** Carries a config's newer members to its next stored version (a PATCH, which changes `enabled` only). */
export function carryNewerMembers(from: StoredAlertConfig, to: StoredAlertConfig): void {
  const members = byConfig.get(from);
  if (members !== undefined) byConfig.set(to, members);
}

/** The answer with the config's newer members merged in (the answer itself when it has none). */
export function withNewerMembers(cfg: StoredAlertConfig, answer: Record<string, unknown>): Record<string, unknown> {
  const members = byConfig.get(cfg);
  if (members === undefined) return answer;
  for (const [field, value] of Object.entries(members.config)) {
    const current = answer[field];
    answer[field] = isRecord(value) && isRecord(current) ? { ...current, ...value } : value;
  }
  const notifications = answer.notifications as Record<string, unknown>[];
  members.notifications.forEach((extra, i) => {
    if (extra !== null && notifications[i] !== undefined) notifications[i] = { ...notifications[i], ...extra };
  });
  return answer;
}
