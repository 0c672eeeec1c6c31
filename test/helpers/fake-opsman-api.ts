/**
 * A hand-written in-memory Ops Manager for the reconciler's unit tests. Behaves like the real product where it
 * matters to a reconciler: ids assigned on create, `enabled` false when omitted, notifications echo only their type's
 * fields (with server defaults), secrets redacted on read, audit events per mutation with the caller's publicKey.
 * Records every call; faults are injectable per method and project.
 */

// The notification field table and the redacted fields are the emulator's (one table of the product's behaviour).
import { KEY_LIKE_FIELDS, NOTIFICATION_TYPES } from '../../emulator/alerts/catalog.ts';
import type { OpsManagerApi } from '../../lambdas/core/ports.ts';
import { AmbiguousWriteError, OpsManagerApiError } from '../../lambdas/opsman/errors.ts';
import type {
  AlertConfig,
  AlertConfigRequest,
  AuditLogRotateConfig,
  EventQuery,
  HostAssignment,
  NotificationRequest,
  NotificationResponse,
  OpsManagerEvent,
  PhysicalHost,
  RawJsonDocument,
  ServerType,
  Team,
} from '../../lambdas/opsman/types.ts';

function redact(field: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (KEY_LIKE_FIELDS.has(field)) return '*'.repeat(Math.max(0, value.length - 4)) + value.slice(-4);
  if (field === 'webhookUrl') {
    const m = /^(\w+:\/\/[^/]*)(.*)$/.exec(value);
    return m ? `${m[1]}/${'*'.repeat(Math.max(1, (m[2] ?? '').length - 1))}` : '*'.repeat(value.length);
  }
  if (field === 'webhookSecret') return '*'.repeat(value.length);
  return value;
}

/** An alert config as stored: secrets in clear (only this fake sees them). */
export interface StoredAlert {
  id: string;
  groupId: string;
  created: string;
  updated: string;
  enabled: boolean;
  eventTypeName: string;
  matchers: { fieldName: string; operator: string; value: string }[];
  metricThreshold?: AlertConfig['metricThreshold'];
  threshold?: AlertConfig['threshold'];
  notifications: Record<string, unknown>[];
}

/** A call as recorded. */
export interface FakeCall {
  method: string;
  route: string;
  groupId?: string;
  actor: string;
}

/** A fault: the next `times` matching calls throw `error` (phase 'after': the write happens first). */
export interface FakeFault {
  method: keyof OpsManagerApi;
  groupId?: string;
  times?: number;
  phase?: 'before' | 'after';
  error: () => Error;
}

const ROUTES: Partial<Record<keyof OpsManagerApi, string>> = {
  listAlertConfigs: 'GET /groups/{groupId}/alertConfigs',
  getAlertConfig: 'GET /groups/{groupId}/alertConfigs/{alertConfigId}',
  createAlertConfig: 'POST /groups/{groupId}/alertConfigs',
  updateAlertConfig: 'PUT /groups/{groupId}/alertConfigs/{alertConfigId}',
  setAlertConfigEnabled: 'PATCH /groups/{groupId}/alertConfigs/{alertConfigId}',
  deleteAlertConfig: 'DELETE /groups/{groupId}/alertConfigs/{alertConfigId}',
  getProjectDefaultServerType: 'GET /usage/groups/{groupId}/defaultServerType',
  setProjectDefaultServerType: 'PUT /usage/groups/{groupId}/defaultServerType',
  getOrgDefaultServerType: 'GET /usage/orgs/{orgId}/defaultServerType',
  setOrgDefaultServerType: 'PUT /usage/orgs/{orgId}/defaultServerType',
  getAuditLogRotateConfig: 'GET /groups/{groupId}/automationConfig/auditLogRotateConfig',
  setAuditLogRotateConfig: 'PUT /groups/{groupId}/automationConfig/auditLogRotateConfig',
  getTeam: 'GET /orgs/{orgId}/teams/{teamId}',
  listProjectEvents: 'GET /groups/{groupId}/events',
  listOrgEvents: 'GET /orgs/{orgId}/events',
  getVersionManifest: 'GET /unauth/versionManifest',
  putVersionManifest: 'PUT /versionManifest',
  listPhysicalHosts: 'GET /usage/groups',
  listProjectHostAssignments: 'GET /usage/groups/{groupId}/hosts',
  listOrgHostAssignments: 'GET /usage/orgs/{orgId}/hosts',
};

const WRITES = new Set<keyof OpsManagerApi>([
  'createAlertConfig',
  'updateAlertConfig',
  'setAlertConfigEnabled',
  'deleteAlertConfig',
  'setProjectDefaultServerType',
  'setOrgDefaultServerType',
  'setAuditLogRotateConfig',
  'putVersionManifest',
]);

/** The shared world behind one or more FakeOpsManager views (one per API key). */
export class FakeWorld {
  groups = new Map<string, { orgId: string; alerts: Map<string, StoredAlert> }>();
  orgs = new Set<string>();
  teams = new Map<string, Team>();
  serverTypes = new Map<string, ServerType | null>();
  auditLog = new Map<string, AuditLogRotateConfig>();
  events: OpsManagerEvent[] = [];
  manifest = '{"updated":1700000000000,"versions":[{"name":"7.0.1","builds":[]}]}';
  physicalHosts: PhysicalHost[] = [];
  assignments = new Map<string, HostAssignment[]>();
  calls: FakeCall[] = [];
  faults: FakeFault[] = [];
  private seq = 0;
  /** The fake's own clock (one second per reading) unless `timeSource` is set (share the run's clock). */
  time = Date.parse('2026-01-01T00:00:00Z');
  timeSource: (() => Date) | undefined;
  /** Called on every stored alert: lets a test make the server alter what it was sent (non-convergence). */
  onStore: ((stored: StoredAlert) => void) | undefined;

  /** Adds a project (and its org). */
  addProject(groupId: string, orgId = 'org0'): void {
    this.orgs.add(orgId);
    if (!this.groups.has(groupId)) this.groups.set(groupId, { orgId, alerts: new Map() });
  }

  /** Adds a team. */
  addTeam(orgId: string, teamId: string, name = `team-${teamId}`): void {
    this.teams.set(`${orgId}/${teamId}`, { id: teamId, name, links: [] });
  }

  nextId(): string {
    this.seq++;
    return `6b${this.seq.toString(16).padStart(22, '0')}`;
  }

  now(): string {
    this.time += 1000;
    const at = this.timeSource?.() ?? new Date(this.time);
    return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** Writes made so far (method names), optionally for one project. */
  writes(groupId?: string): FakeCall[] {
    return this.calls.filter(
      (c) => WRITES.has(c.method as keyof OpsManagerApi) && (groupId === undefined || c.groupId === groupId),
    );
  }

  /** Counts calls by route template (what the client's observer reports). */
  apiCalls(): { total: number; byEndpoint: Record<string, number> } {
    const byEndpoint: Record<string, number> = {};
    for (const c of this.calls) byEndpoint[c.route] = (byEndpoint[c.route] ?? 0) + 1;
    return { total: this.calls.length, byEndpoint };
  }

  /** Stores an alert config directly (seeding: Ops Manager defaults, or a hand-made one). */
  seedAlert(groupId: string, body: AlertConfigRequest): string {
    return this.store(groupId, body, undefined).id;
  }

  store(groupId: string, body: AlertConfigRequest, id: string | undefined): StoredAlert {
    const group = this.groups.get(groupId);
    if (group === undefined) throw new Error(`no group ${groupId}`);
    const previous = id === undefined ? undefined : group.alerts.get(id);
    const now = this.now();
    const stored: StoredAlert = {
      id: id ?? this.nextId(),
      groupId,
      created: previous?.created ?? now,
      updated: now,
      enabled: body.enabled === true,
      eventTypeName: body.eventTypeName,
      matchers: (body.matchers ?? []).map((m) => ({ ...m })),
      notifications: body.notifications.map((n) => this.storeNotification(n)),
    };
    if (body.metricThreshold !== undefined) stored.metricThreshold = { ...body.metricThreshold };
    if (body.threshold !== undefined) stored.threshold = { ...body.threshold };
    this.onStore?.(stored);
    group.alerts.set(stored.id, stored);
    return stored;
  }

  private storeNotification(n: NotificationRequest): Record<string, unknown> {
    const spec = NOTIFICATION_TYPES[n.typeName];
    const out: Record<string, unknown> = { typeName: n.typeName, delayMin: n.delayMin ?? 0 };
    if (spec?.interval) out.intervalMin = n.intervalMin ?? 60;
    for (const field of spec?.own ?? []) {
      const v = (n as unknown as Record<string, unknown>)[field];
      if (v !== undefined) out[field] = Array.isArray(v) ? [...v] : v;
    }
    if (n.role !== undefined && out.roles === undefined && spec?.own.includes('roles')) out.roles = [n.role];
    return out;
  }

  render(a: StoredAlert): AlertConfig {
    const out: AlertConfig = {
      id: a.id,
      groupId: a.groupId,
      created: a.created,
      updated: a.updated,
      enabled: a.enabled,
      eventTypeName: a.eventTypeName,
      typeName: 'HOST_METRIC',
      links: [{ rel: 'self', href: `http://fake/groups/${a.groupId}/alertConfigs/${a.id}` }],
      matchers: a.matchers.map((m) => ({ ...m })),
      notifications: a.notifications.map((n) => {
        const r: Record<string, unknown> = { notifierId: `n-${a.id}` };
        for (const [k, v] of Object.entries(n)) r[k] = Array.isArray(v) ? [...v] : redact(k, v);
        if (n.typeName === 'TEAM') r.teamName = 'some team';
        return r as unknown as NotificationResponse;
      }),
    };
    if (a.metricThreshold !== undefined) out.metricThreshold = { ...a.metricThreshold };
    if (a.threshold !== undefined) out.threshold = { ...a.threshold };
    return out;
  }

  event(eventTypeName: string, actor: string, fields: Partial<OpsManagerEvent>): void {
    this.events.push({
      id: this.nextId(),
      created: this.now(),
      eventTypeName,
      publicKey: actor,
      remoteAddress: '127.0.0.1',
      ...fields,
    });
  }

  /** A view of the world through one API key (its publicKey is the events' actor). */
  as(publicKey: string): FakeOpsManager {
    return new FakeOpsManager(this, publicKey);
  }
}

function notFound(method: string, path: string, code: string, detail: string): OpsManagerApiError {
  return new OpsManagerApiError(404, code, detail, { method, pathTemplate: path });
}

/** The OpsManagerApi over a FakeWorld, acting as one API key. */
export class FakeOpsManager implements OpsManagerApi {
  constructor(
    readonly world: FakeWorld,
    readonly actor = 'gitopsbt',
  ) {}

  private async call<T>(method: keyof OpsManagerApi, groupId: string | undefined, fn: () => T): Promise<T> {
    const route = ROUTES[method] ?? method;
    const call: FakeCall = { method, route, actor: this.actor };
    if (groupId !== undefined) call.groupId = groupId;
    this.world.calls.push(call);
    await Promise.resolve();
    const fault = this.world.faults.find(
      (f) => f.method === method && (f.groupId === undefined || f.groupId === groupId),
    );
    if (fault !== undefined) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) this.world.faults.splice(this.world.faults.indexOf(fault), 1);
      if (fault.phase === 'after') {
        fn();
      }
      throw fault.error();
    }
    return fn();
  }

  private group(groupId: string, method: string, path: string) {
    const g = this.world.groups.get(groupId);
    if (g === undefined) throw notFound(method, path, 'GROUP_NOT_FOUND', `No group with ID ${groupId} exists.`);
    return g;
  }

  private alert(groupId: string, id: string, method: string): StoredAlert {
    const path = '/groups/{groupId}/alertConfigs/{alertConfigId}';
    const a = this.group(groupId, method, path).alerts.get(id);
    if (a === undefined)
      throw notFound(
        method,
        path,
        'ALERT_CONFIG_NOT_FOUND',
        `No alert configuration with ID ${id} exists in group ${groupId}.`,
      );
    return a;
  }

  listAlertConfigs(groupId: string): Promise<AlertConfig[]> {
    return this.call('listAlertConfigs', groupId, () =>
      [...this.group(groupId, 'GET', '/groups/{groupId}/alertConfigs').alerts.values()].map((a) =>
        this.world.render(a),
      ),
    );
  }

  getAlertConfig(groupId: string, id: string): Promise<AlertConfig> {
    return this.call('getAlertConfig', groupId, () => this.world.render(this.alert(groupId, id, 'GET')));
  }

  createAlertConfig(groupId: string, body: AlertConfigRequest): Promise<AlertConfig> {
    return this.call('createAlertConfig', groupId, () => {
      this.group(groupId, 'POST', '/groups/{groupId}/alertConfigs');
      const stored = this.world.store(groupId, structuredClone(body), undefined);
      this.world.event('ALERT_CONFIG_ADDED_AUDIT', this.actor, { groupId, alertConfigId: stored.id });
      return this.world.render(stored);
    });
  }

  updateAlertConfig(groupId: string, id: string, body: AlertConfigRequest): Promise<AlertConfig> {
    return this.call('updateAlertConfig', groupId, () => {
      this.alert(groupId, id, 'PUT');
      const stored = this.world.store(groupId, structuredClone(body), id);
      this.world.event('ALERT_CONFIG_CHANGED_AUDIT', this.actor, { groupId, alertConfigId: id });
      return this.world.render(stored);
    });
  }

  setAlertConfigEnabled(groupId: string, id: string, enabled: boolean): Promise<AlertConfig> {
    return this.call('setAlertConfigEnabled', groupId, () => {
      const a = this.alert(groupId, id, 'PATCH');
      a.enabled = enabled;
      a.updated = this.world.now();
      this.world.event(enabled ? 'ALERT_CONFIG_ENABLED_AUDIT' : 'ALERT_CONFIG_DISABLED_AUDIT', this.actor, {
        groupId,
        alertConfigId: id,
      });
      return this.world.render(a);
    });
  }

  deleteAlertConfig(groupId: string, id: string): Promise<void> {
    return this.call('deleteAlertConfig', groupId, () => {
      this.alert(groupId, id, 'DELETE');
      this.world.groups.get(groupId)?.alerts.delete(id);
      this.world.event('ALERT_CONFIG_DELETED_AUDIT', this.actor, { groupId, alertConfigId: id });
    });
  }

  getProjectDefaultServerType(groupId: string): Promise<ServerType | null> {
    return this.call('getProjectDefaultServerType', groupId, () => {
      this.group(groupId, 'GET', '/usage/groups/{groupId}/defaultServerType');
      return this.world.serverTypes.get(groupId) ?? null;
    });
  }

  setProjectDefaultServerType(groupId: string, serverType: ServerType): Promise<void> {
    return this.call('setProjectDefaultServerType', groupId, () => {
      this.group(groupId, 'PUT', '/usage/groups/{groupId}/defaultServerType');
      this.world.serverTypes.set(groupId, { ...serverType });
      this.world.event('DEFAULT_SERVER_TYPE_CHANGED_AUDIT', this.actor, { groupId });
    });
  }

  getOrgDefaultServerType(orgId: string): Promise<ServerType | null> {
    return this.call('getOrgDefaultServerType', undefined, () => this.world.serverTypes.get(`org:${orgId}`) ?? null);
  }

  setOrgDefaultServerType(orgId: string, serverType: ServerType): Promise<void> {
    return this.call('setOrgDefaultServerType', undefined, () => {
      this.world.serverTypes.set(`org:${orgId}`, { ...serverType });
      this.world.event('DEFAULT_SERVER_TYPE_CHANGED_AUDIT', this.actor, { orgId });
    });
  }

  getAuditLogRotateConfig(groupId: string): Promise<AuditLogRotateConfig> {
    return this.call('getAuditLogRotateConfig', groupId, () => ({ ...(this.world.auditLog.get(groupId) ?? {}) }));
  }

  setAuditLogRotateConfig(groupId: string, config: AuditLogRotateConfig): Promise<void> {
    return this.call('setAuditLogRotateConfig', groupId, () => {
      const filled =
        Object.keys(config).length === 0
          ? {}
          : { numUncompressed: 5, percentOfDiskspace: 0.02, numTotal: 0, ...config };
      this.world.auditLog.set(groupId, filled);
      this.world.event('AUTOMATION_CONFIG_PUBLISHED_AUDIT', this.actor, { groupId });
    });
  }

  getTeam(orgId: string, teamId: string): Promise<Team> {
    return this.call('getTeam', undefined, () => {
      const team = this.world.teams.get(`${orgId}/${teamId}`);
      if (team === undefined)
        throw notFound(
          'GET',
          '/orgs/{orgId}/teams/{teamId}',
          'RESOURCE_NOT_FOUND',
          `Cannot find resource /orgs/${orgId}/teams/${teamId}.`,
        );
      return team;
    });
  }

  private filterEvents(events: OpsManagerEvent[], query: EventQuery | undefined): OpsManagerEvent[] {
    const min = query?.minDate === undefined ? undefined : Date.parse(query.minDate);
    // Newest first; events of the same second in reverse order of recording (like the real list).
    return events
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => query?.eventType === undefined || query.eventType.includes(e.eventTypeName))
      .filter(({ e }) => min === undefined || Date.parse(e.created) >= min)
      .sort((a, b) => (a.e.created < b.e.created ? 1 : a.e.created > b.e.created ? -1 : b.i - a.i))
      .map(({ e }) => ({ ...e }));
  }

  listProjectEvents(groupId: string, query?: EventQuery): Promise<OpsManagerEvent[]> {
    return this.call('listProjectEvents', groupId, () =>
      this.filterEvents(
        this.world.events.filter((e) => e.groupId === groupId),
        query,
      ),
    );
  }

  listOrgEvents(orgId: string, query?: EventQuery): Promise<OpsManagerEvent[]> {
    return this.call('listOrgEvents', undefined, () =>
      this.filterEvents(
        this.world.events.filter((e) => e.orgId === orgId),
        query,
      ),
    );
  }

  getVersionManifest(): Promise<RawJsonDocument> {
    return this.call('getVersionManifest', undefined, () => ({
      text: this.world.manifest,
      value: JSON.parse(this.world.manifest),
    }));
  }

  putVersionManifest(text: string): Promise<RawJsonDocument> {
    return this.call('putVersionManifest', undefined, () => {
      this.world.manifest = text;
      this.world.event('VERSION_MANIFEST_UPDATED_AUDIT', this.actor, {});
      return { text, value: JSON.parse(text) };
    });
  }

  listPhysicalHosts(): Promise<PhysicalHost[]> {
    return this.call('listPhysicalHosts', undefined, () => structuredClone(this.world.physicalHosts));
  }

  listProjectHostAssignments(groupId: string, _start: string, _end: string): Promise<HostAssignment[]> {
    return this.call('listProjectHostAssignments', groupId, () =>
      structuredClone(this.world.assignments.get(groupId) ?? []),
    );
  }

  listOrgHostAssignments(orgId: string, _start: string, _end: string): Promise<HostAssignment[]> {
    return this.call('listOrgHostAssignments', undefined, () =>
      structuredClone(this.world.assignments.get(`org:${orgId}`) ?? []),
    );
  }
}

/** An error the fake can throw for a write whose outcome is unknown. */
export function ambiguous(method = 'POST', path = '/groups/{groupId}/alertConfigs'): AmbiguousWriteError {
  return new AmbiguousWriteError({ method, pathTemplate: path });
}

/** A 500 from the fake. */
export function serverError(method = 'GET', path = '/groups/{groupId}/alertConfigs'): OpsManagerApiError {
  return new OpsManagerApiError(500, 'UNEXPECTED_ERROR', 'Unexpected error.', { method, pathTemplate: path });
}
