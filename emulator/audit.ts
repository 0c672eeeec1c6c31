/** Audit events: every successful mutation records who did what, from where, and which parameters changed. */
import type { DiffParam } from './alerts/diffs.ts';
import { isoSeconds, newObjectId } from './ids.ts';
import type { RequestContext } from './routes/context.ts';
import type { EventRec } from './store/state.ts';

/** What a mutation tells the audit log. */
export interface AuditInput {
  eventTypeName: string;
  groupId?: string;
  orgId?: string;
  alertConfigId?: string;
  hostId?: string;
  /** The host's name (the spec's event `hostname`). */
  hostname?: string;
  /** The changed parameters, secrets already redacted. */
  params?: DiffParam[];
  /** Status of the diff: NEW, MODIFIED or REMOVED. */
  status?: 'NEW' | 'MODIFIED' | 'REMOVED';
  /** Diff type when one of the spec's applies (PROCESS for automation changes). */
  diffType?: string;
  /** Name of the changed object in the diff. */
  name?: string | null;
  /** Extra fields of the raw document. */
  raw?: Record<string, unknown>;
}

/** Records an audit event for the caller of `ctx`. */
export function recordAudit(ctx: RequestContext, input: AuditInput): EventRec {
  const now = ctx.core.now();
  const id = newObjectId(now);
  const key = ctx.key;
  const event: EventRec = { id, created: isoSeconds(now), eventTypeName: input.eventTypeName };
  if (input.groupId) event.groupId = input.groupId;
  if (input.orgId) event.orgId = input.orgId;
  if (input.alertConfigId) event.alertConfigId = input.alertConfigId;
  if (input.hostId) event.hostId = input.hostId;
  if (input.hostname) event.hostname = input.hostname;
  if (key) {
    event.apiKeyId = key.id;
    event.publicKey = key.publicKey;
    event.isGlobalAdmin = key.roles.some(
      (r) => r.roleName === 'GLOBAL_OWNER' || r.roleName === 'GLOBAL_MONITORING_ADMIN',
    );
  }
  event.remoteAddress = ctx.remoteAddress;
  const diff: Record<string, unknown> = {
    id: input.alertConfigId ?? input.hostId ?? id,
    name: input.name ?? null,
    params: input.params ?? [],
    privileges: null,
    roles: [],
    status: input.status ?? 'MODIFIED',
  };
  if (input.diffType) diff.type = input.diffType;
  event.diffs = [diff];
  event.raw = {
    _t: 'AUDIT',
    ...rawCore(event),
    ...(key ? { apiKeyId: key.id } : {}),
    ...input.raw,
  };
  ctx.core.addEvent(event);
  return event;
}

/** What every raw document holds: when, what, and where (the project or organization of the event). */
function rawCore(event: EventRec): Record<string, unknown> {
  return {
    cre: event.created,
    et: event.eventTypeName,
    ...(event.groupId ? { gid: event.groupId } : {}),
    ...(event.orgId ? { orgId: event.orgId } : {}),
  };
}

/**
 * An event as answered: `raw` only when asked, a self link. Asked, it is always there (the spec: raw "appears only
 * when includeRaw is true"; the real product keeps one for every event): an event seeded without one gets its core.
 */
export function renderEvent(event: EventRec, apiBase: string, includeRaw: boolean): Record<string, unknown> {
  const { raw, ...rest } = event;
  const out: Record<string, unknown> = { ...rest };
  if (includeRaw) out.raw = raw ?? rawCore(event);
  const path = event.groupId
    ? `/groups/${event.groupId}/events/${event.id}`
    : `/orgs/${event.orgId}/events/${event.id}`;
  out.links = [{ href: `${apiBase}${path}`, rel: 'self' }];
  return out;
}
