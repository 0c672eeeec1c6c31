/**
 * Alert configurations as read back: secrets redacted, each notification's own fields and those of the spec's "when
 * they were set" list that were sent, links.
 */
import type { StoredAlertConfig, StoredNotification } from '../store/state.ts';
import { ECHOED_WHEN_SET, notificationTypeSpec } from './catalog.ts';
import { redactField } from './redact.ts';

/** A link of an entity or a list. */
export interface Link {
  rel: string;
  href: string;
}

const fieldsCache = new Map<readonly string[], readonly string[]>();

/** A type's own fields, then the other echoed-when-set ones (what a stored notification may hold). */
function fieldsOf(own: readonly string[]): readonly string[] {
  let fields = fieldsCache.get(own);
  if (fields === undefined) {
    // `roles` last: a role sent to a type without roles of its own is echoed too (validate-notification.ts).
    fields = [...own, ...ECHOED_WHEN_SET.filter((f) => !own.includes(f)), ...(own.includes('roles') ? [] : ['roles'])];
    fieldsCache.set(own, fields);
  }
  return fields;
}

/** One notification as answered. `teamName` resolves a team id to its name. */
export function renderNotification(
  n: StoredNotification,
  teamName: (teamId: string) => string | undefined,
): Record<string, unknown> {
  const spec = notificationTypeSpec(n.typeName);
  const out: Record<string, unknown> = { typeName: n.typeName, delayMin: n.delayMin };
  if (spec?.interval && n.intervalMin !== undefined) out.intervalMin = n.intervalMin;
  for (const field of fieldsOf(spec?.own ?? [])) {
    const value = n[field];
    if (value === undefined) continue;
    out[field] = Array.isArray(value) ? [...value] : redactField(field, value);
  }
  if (n.typeName === 'TEAM' && typeof n.teamId === 'string') {
    const name = teamName(n.teamId);
    if (name !== undefined) out.teamName = name;
  }
  out.notifierId = n.notifierId;
  return out;
}

/** One alert configuration as answered. */
export function renderAlertConfig(
  cfg: StoredAlertConfig,
  links: Link[],
  teamName: (teamId: string) => string | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: cfg.id,
    groupId: cfg.groupId,
    eventTypeName: cfg.eventTypeName,
    ...(cfg.typeName === undefined ? {} : { typeName: cfg.typeName }),
    created: cfg.created,
    updated: cfg.updated,
    enabled: cfg.enabled,
    matchers: cfg.matchers.map((m) => ({ ...m })),
  };
  if (cfg.metricThreshold) out.metricThreshold = { ...cfg.metricThreshold };
  if (cfg.threshold) out.threshold = { ...cfg.threshold };
  out.notifications = cfg.notifications.map((n) => renderNotification(n, teamName));
  out.links = links;
  return out;
}
