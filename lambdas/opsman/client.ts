/**
 * The Ops Manager Public API client: typed methods for every operation of the spec and the reference's extras,
 * over Digest auth, retries, pagination and a shared concurrency cap. Create with {@link createOpsManagerClient}.
 */
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import type { OpsManagerApi } from '../core/ports.ts';
import { ApiCaller, type QueryValue, type RequestStop } from './api-caller.ts';
import type { HttpResponse } from './auth-exchange.ts';
import { NonceCache } from './digest/index.ts';
import { OpsManagerResponseError, OpsManagerValidationError } from './errors.ts';
import { nestsDeeperThan, TOO_DEEP } from './json-depth.ts';
import { normalizeHostAssignment, normalizePhysicalHost, normalizeServerType } from './normalize.ts';
import { notJsonReason } from './not-json.ts';
import type { ClientOptions, ResolvedClientOptions } from './options.ts';
import { resolveClientOptions } from './options-resolve.ts';
import { firstItems } from './pagination.ts';
import { RequestExecutor } from './request-executor.ts';
import { type RoleForm, refusesSpecRole, withSpecRole } from './role-wire.ts';
import { ROUTES } from './routes.ts';
import { createDispatcher } from './transport.ts';
import type {
  AlertConfig,
  AlertConfigRequest,
  AuditLogRotateConfig,
  EventQuery,
  HostAssignment,
  ListLimit,
  OpsManagerEvent,
  PhysicalHost,
  PhysicalHostRequest,
  RawJsonDocument,
  S3BlockstoreConfig,
  ServerType,
  Team,
} from './types.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A `YYYY-MM-DD` that names a real day (Date.parse would roll 30 February over into March). */
function isExistingDate(value: string): boolean {
  const ms = Date.parse(`${value}T00:00:00Z`);
  return ISO_DATE.test(value) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value);
}

function eventQuery(query: EventQuery | undefined): Record<string, QueryValue> {
  return {
    eventType: query?.eventType,
    minDate: query?.minDate,
    maxDate: query?.maxDate,
    includeRaw: query?.includeRaw,
  };
}

function dateRange(method: string, pathTemplate: string, startDate: string, endDate: string) {
  for (const [name, value] of [
    ['startDate', startDate],
    ['endDate', endDate],
  ] as const) {
    if (typeof value !== 'string' || !isExistingDate(value)) {
      throw new OpsManagerValidationError(
        `${method} ${pathTemplate}: ${name} must be an ISO 8601 date (YYYY-MM-DD) that exists, got ${JSON.stringify(value)}`,
        { method, pathTemplate },
      );
    }
  }
  return { startDate, endDate };
}

/** What a client shares with its signal-bound views: one transport, one executor (limiter, nonces, verdicts). */
interface ClientCore {
  resolved: ResolvedClientOptions;
  dispatcher: Dispatcher;
  executor: RequestExecutor;
  closing: Promise<void> | null;
  /** The form one-role notifications are sent in; shared by the client and its views (see role-wire.ts). */
  roleForm: RoleForm;
}

/** How a view's requests are stopped (HttpRequest.signal, HttpRequest.stopWaiting, HttpRequest.endBy). */
type ViewStop = RequestStop;

/**
 * `signal` relayed through a signal of our own with no listener cap: every waiting or in-flight request listens to it,
 * so a plan with dozens of reads queued does not print Node's MaxListenersExceededWarning on the caller's signal (one
 * listener there per view).
 */
function relayed(signal: AbortSignal): AbortSignal {
  const relay = new AbortController();
  setMaxListeners(0, relay.signal);
  if (signal.aborted) relay.abort(signal.reason);
  else signal.addEventListener('abort', () => relay.abort(signal.reason), { once: true });
  return relay.signal;
}

/** Marks the constructor argument of a view, so no options object can be taken for one. */
const VIEW = Symbol('OpsManagerClient view');

/** The client. Implements the core's {@link OpsManagerApi} and more. Call {@link close} when done. */
export class OpsManagerClient implements OpsManagerApi {
  readonly #core: ClientCore;
  readonly #api: ApiCaller;
  /** How this view's requests are stopped (none for the client itself); a view of a view keeps the other stops. */
  readonly #stop: ViewStop;

  /** Prefer {@link createOpsManagerClient}. */
  constructor(options: ClientOptions | { [VIEW]: { core: ClientCore; stop: ViewStop } }) {
    if (VIEW in options) {
      this.#core = options[VIEW].core;
      this.#stop = options[VIEW].stop;
      this.#api = new ApiCaller(this.#core.resolved, this.#core.executor, this.#stop);
      return;
    }
    const resolved = resolveClientOptions(options);
    const dispatcher = createDispatcher(resolved);
    const executor = new RequestExecutor(resolved, dispatcher, new NonceCache());
    this.#core = { resolved, dispatcher, executor, closing: null, roleForm: 'role' };
    this.#stop = {};
    this.#api = new ApiCaller(resolved, executor);
  }

  /**
   * The same client (connections, concurrency cap, nonces) with every request made through it stopped as soon as
   * `signal` aborts: while it waits for a slot or a backoff it is never sent; in flight, its connection is closed.
   * Either way it rejects at once with OpsManagerAbortedError, or AmbiguousWriteError for a POST that may have been
   * applied. Meant for reads a stopped run need not finish (the reconciler's planning); closing a view closes the client.
   */
  withSignal(signal: AbortSignal): OpsManagerClient {
    return new OpsManagerClient({ [VIEW]: { core: this.#core, stop: { ...this.#stop, signal: relayed(signal) } } });
  }

  /**
   * The same client with every request made through it stopped, once `signal` aborts, only where it waits: for a slot,
   * for another request's first Digest challenge, or out a backoff before a retry (a 429's Retry-After can be a
   * minute). An attempt on the wire still gets its answer. A request stopped so rejects with OpsManagerAbortedError,
   * `sent` false unless an earlier attempt may have been applied (a 5xx to a PUT); a POST is never cut in flight. Meant for an apply's writes: a stopped apply does not
   * sit out a backoff, and never leaves an ambiguous create behind.
   */
  withStopWaiting(signal: AbortSignal): OpsManagerClient {
    return new OpsManagerClient({
      [VIEW]: { core: this.#core, stop: { ...this.#stop, stopWaiting: relayed(signal) } },
    });
  }

  /**
   * The same client with every request made through it ended by `at` (a Lambda run that must still save its state
   * and release its lease before its time limit): no attempt or retry starts at or past it, an attempt in flight is
   * cut then (its timeouts are capped by the time left), and a retry whose backoff would end past it is not waited
   * for (the request fails with its last error). A request ended so rejects with OpsManagerAbortedError giving
   * `reason`, `sent` true when it may have reached Ops Manager; a POST cut on the wire with AmbiguousWriteError.
   * Views made from this one keep the limit.
   */
  withEndBy(at: Date, reason: string): OpsManagerClient {
    const endBy = { at: at.getTime(), reason };
    return new OpsManagerClient({ [VIEW]: { core: this.#core, stop: { ...this.#stop, endBy } } });
  }

  /**
   * Forgets that Ops Manager stood silent (the silence verdict, shared with every view): a client kept between runs (a
   * warm Lambda) calls it when a run starts, so that the run asks Ops Manager again instead of failing every request
   * unsent because of an earlier run. Requests in flight are not affected.
   */
  forgetSilence(): void {
    this.#core.executor.forgetSilence();
  }

  /**
   * Stops reusing the kept-alive connections: later requests (of every view) open new ones, requests in flight finish
   * on theirs, then those close. A client kept between runs (a warm Lambda) calls it when a run starts. While the
   * function was frozen, a NAT gateway or load balancer on the way may have forgotten a connection (their idle timeout,
   * 350 s on AWS) without a word to the client, and undici's keep-alive timer does not count frozen time; the run's
   * first request would go out on it and be reset, and a POST would then be an AmbiguousWriteError although it never
   * reached Ops Manager. Costs one connection per run. Nonces and verdicts are kept. No-op once closing.
   */
  renewConnections(): void {
    if (this.#core.closing !== null) return;
    const previous = this.#core.dispatcher;
    this.#core.dispatcher = createDispatcher(this.#core.resolved, process.env, false);
    this.#core.executor.useDispatcher(this.#core.dispatcher);
    previous.close().catch(() => undefined);
  }

  /** Refuses new requests, waits for in-flight ones and closes the connections. Idempotent. */
  close(): Promise<void> {
    this.#core.executor.close();
    this.#core.closing ??= this.#core.dispatcher.close();
    return this.#core.closing;
  }

  /** Async iterator over any list endpoint (`rel=next` links, itemsPerPage = pageSize). */
  paginate<T>(pathTemplate: string, params: Record<string, string> = {}, query?: Record<string, QueryValue>) {
    return this.#api.iterate<T>(pathTemplate, params, query === undefined ? {} : { query });
  }

  /** Every item of any list endpoint. */
  listAll<T>(pathTemplate: string, params: Record<string, string> = {}, query?: Record<string, QueryValue>) {
    return this.#api.listAll<T>(pathTemplate, params, query === undefined ? {} : { query });
  }

  // Alert configurations

  /** Every alert configuration of a project (all pages). */
  listAlertConfigs(groupId: string): Promise<AlertConfig[]> {
    return this.#api.listAll<AlertConfig>(ROUTES.alertConfigs, { groupId });
  }
  /** Alert configurations of a project, page by page. */
  iterateAlertConfigs(groupId: string): AsyncGenerator<AlertConfig> {
    return this.#api.iterate<AlertConfig>(ROUTES.alertConfigs, { groupId });
  }
  /** One alert configuration. */
  getAlertConfig(groupId: string, alertConfigId: string): Promise<AlertConfig> {
    return this.#api.entity<AlertConfig>('GET', ROUTES.alertConfig, { groupId, alertConfigId });
  }
  /**
   * POST: never retried after it may have been sent (AmbiguousWriteError: re-read before deciding). The created config,
   * or null when the server answered success without a body (204, or an empty 200/201/202: the reference says to accept
   * any of them): the config exists, and only a re-read can say which it is.
   */
  createAlertConfig(groupId: string, body: AlertConfigRequest): Promise<AlertConfig | null> {
    return this.#sendAlertConfig('POST', ROUTES.alertConfigs, { groupId }, body);
  }
  /** Full replacement (PUT): send everything, `enabled` included. The stored config, or null (no body, as above). */
  updateAlertConfig(groupId: string, alertConfigId: string, body: AlertConfigRequest): Promise<AlertConfig | null> {
    return this.#sendAlertConfig('PUT', ROUTES.alertConfig, { groupId, alertConfigId }, body);
  }
  /**
   * POST or PUT with one-role notifications in the spec's `role` form until the server refuses that field, then in
   * the `roles` form (see role-wire.ts). The refused request wrote nothing (a 400), so it is sent again at once.
   */
  async #sendAlertConfig(
    method: 'POST' | 'PUT',
    route: string,
    params: Record<string, string>,
    body: AlertConfigRequest,
  ): Promise<AlertConfig | null> {
    const wire = this.#core.roleForm === 'role' ? withSpecRole(body) : body;
    try {
      return await this.#api.json<AlertConfig>(method, route, params, { body: wire });
    } catch (error) {
      if (wire === body || !refusesSpecRole(error)) throw error;
      this.#core.roleForm = 'roles';
      return this.#api.json<AlertConfig>(method, route, params, { body });
    }
  }
  /** PATCH `{enabled}`: the safe way to toggle. The stored config, or null (no body, as above). */
  setAlertConfigEnabled(groupId: string, alertConfigId: string, enabled: boolean): Promise<AlertConfig | null> {
    const body = { enabled };
    return this.#api.json<AlertConfig>('PATCH', ROUTES.alertConfig, { groupId, alertConfigId }, { body });
  }
  /** Deletes one alert configuration. */
  async deleteAlertConfig(groupId: string, alertConfigId: string): Promise<void> {
    await this.#api.raw('DELETE', ROUTES.alertConfig, { groupId, alertConfigId });
  }
  /** The matcher field names Ops Manager accepts (a bare array). */
  async listMatcherFieldNames(): Promise<string[]> {
    return (await this.#api.json<string[]>('GET', ROUTES.matcherFieldNames, {})) ?? [];
  }

  // Audit-log rotation

  /** Only the configured fields; `{}` when none (an empty body too). */
  async getAuditLogRotateConfig(groupId: string): Promise<AuditLogRotateConfig> {
    return (await this.#api.json<AuditLogRotateConfig>('GET', ROUTES.auditLogRotateConfig, { groupId })) ?? {};
  }
  /** Replaces the rotation settings (`{}` disables rotation). */
  async setAuditLogRotateConfig(groupId: string, config: AuditLogRotateConfig): Promise<void> {
    await this.#api.raw('PUT', ROUTES.auditLogRotateConfig, { groupId }, { body: config });
  }

  // Usage: physical hosts, assignments, server types

  /** Every physical host; `serverType` always in object form. */
  async listPhysicalHosts(): Promise<PhysicalHost[]> {
    return (await this.#api.listAll<PhysicalHost>(ROUTES.physicalHosts, {})).map(normalizePhysicalHost);
  }
  /** One physical host. */
  async getPhysicalHost(physicalHostId: string): Promise<PhysicalHost> {
    return normalizePhysicalHost(await this.#api.entity<PhysicalHost>('GET', ROUTES.physicalHost, { physicalHostId }));
  }
  /** POST: see {@link createAlertConfig} about ambiguity. */
  async createPhysicalHost(body: PhysicalHostRequest): Promise<PhysicalHost> {
    return normalizePhysicalHost(await this.#api.entity<PhysicalHost>('POST', ROUTES.physicalHosts, {}, { body }));
  }
  /** PUT `{name, serverType, virtualHosts}`. */
  async updatePhysicalHost(physicalHostId: string, body: PhysicalHostRequest): Promise<PhysicalHost> {
    const host = await this.#api.entity<PhysicalHost>('PUT', ROUTES.physicalHost, { physicalHostId }, { body });
    return normalizePhysicalHost(host);
  }
  /** Deletes one physical host. */
  async deletePhysicalHost(physicalHostId: string): Promise<void> {
    await this.#api.raw('DELETE', ROUTES.physicalHost, { physicalHostId });
  }
  /** Host assignments of a project between two ISO dates (all pages). */
  async listProjectHostAssignments(groupId: string, startDate: string, endDate: string): Promise<HostAssignment[]> {
    const query = dateRange('GET', ROUTES.projectHostAssignments, startDate, endDate);
    const items = await this.#api.listAll<HostAssignment>(ROUTES.projectHostAssignments, { groupId }, { query });
    return items.map(normalizeHostAssignment);
  }
  /** Host assignments of an organization between two ISO dates (all pages). */
  async listOrgHostAssignments(orgId: string, startDate: string, endDate: string): Promise<HostAssignment[]> {
    const query = dateRange('GET', ROUTES.orgHostAssignments, startDate, endDate);
    const items = await this.#api.listAll<HostAssignment>(ROUTES.orgHostAssignments, { orgId }, { query });
    return items.map(normalizeHostAssignment);
  }
  /** PUT `{serverType}` on one host. */
  async setHostServerType(hostId: string, serverType: ServerType): Promise<void> {
    await this.#api.raw('PUT', ROUTES.hostServerType, { hostId }, { body: { serverType } });
  }
  /** null when none is set (empty body). Accepts the bare, wrapped and string forms. */
  async getProjectDefaultServerType(groupId: string): Promise<ServerType | null> {
    return normalizeServerType(await this.#api.json('GET', ROUTES.projectDefaultServerType, { groupId }));
  }
  /** PUT `{serverType}`. */
  async setProjectDefaultServerType(groupId: string, serverType: ServerType): Promise<void> {
    await this.#api.raw('PUT', ROUTES.projectDefaultServerType, { groupId }, { body: { serverType } });
  }
  /** null when none is set (empty body). */
  async getOrgDefaultServerType(orgId: string): Promise<ServerType | null> {
    return normalizeServerType(await this.#api.json('GET', ROUTES.orgDefaultServerType, { orgId }));
  }
  /** PUT `{serverType}`. */
  async setOrgDefaultServerType(orgId: string, serverType: ServerType): Promise<void> {
    await this.#api.raw('PUT', ROUTES.orgDefaultServerType, { orgId }, { body: { serverType } });
  }

  // Teams and events

  /** One team of an organization. */
  getTeam(orgId: string, teamId: string): Promise<Team> {
    return this.#api.entity<Team>('GET', ROUTES.team, { orgId, teamId });
  }
  /** Every event of a project matching the filters (all pages, newest first as served), or the first `limit.maxItems`. */
  listProjectEvents(groupId: string, query?: EventQuery, limit?: ListLimit): Promise<OpsManagerEvent[]> {
    if (limit !== undefined) return firstItems(this.iterateProjectEvents(groupId, query), limit.maxItems);
    return this.#api.listAll<OpsManagerEvent>(
      ROUTES.projectEvents,
      { groupId },
      { query: eventQuery(query), growing: true },
    );
  }
  /** Project events, page by page. */
  iterateProjectEvents(groupId: string, query?: EventQuery): AsyncGenerator<OpsManagerEvent> {
    return this.#api.iterate<OpsManagerEvent>(
      ROUTES.projectEvents,
      { groupId },
      { query: eventQuery(query), growing: true },
    );
  }
  /** One project event. */
  getProjectEvent(groupId: string, eventId: string, options?: { includeRaw?: boolean }): Promise<OpsManagerEvent> {
    const query = { includeRaw: options?.includeRaw };
    return this.#api.entity<OpsManagerEvent>('GET', ROUTES.projectEvent, { groupId, eventId }, { query });
  }
  /** Every event of an organization matching the filters (all pages), or the first `limit.maxItems`. */
  listOrgEvents(orgId: string, query?: EventQuery, limit?: ListLimit): Promise<OpsManagerEvent[]> {
    if (limit !== undefined) return firstItems(this.iterateOrgEvents(orgId, query), limit.maxItems);
    return this.#api.listAll<OpsManagerEvent>(ROUTES.orgEvents, { orgId }, { query: eventQuery(query), growing: true });
  }
  /** Organization events, page by page. */
  iterateOrgEvents(orgId: string, query?: EventQuery): AsyncGenerator<OpsManagerEvent> {
    return this.#api.iterate<OpsManagerEvent>(ROUTES.orgEvents, { orgId }, { query: eventQuery(query), growing: true });
  }
  /** One organization event. */
  getOrgEvent(orgId: string, eventId: string, options?: { includeRaw?: boolean }): Promise<OpsManagerEvent> {
    const query = { includeRaw: options?.includeRaw };
    return this.#api.entity<OpsManagerEvent>('GET', ROUTES.orgEvent, { orgId, eventId }, { query });
  }

  // Version manifest

  /** GET /unauth/versionManifest without credentials; the text exactly as served. */
  async getVersionManifest(): Promise<RawJsonDocument> {
    const response = await this.#api.raw('GET', ROUTES.unauthVersionManifest, {}, { auth: false });
    return rawDocument(response, 'GET', ROUTES.unauthVersionManifest);
  }
  /** PUT /versionManifest with `text` unaltered (it must be JSON); returns what the server answered. */
  async putVersionManifest(text: string): Promise<RawJsonDocument> {
    const context = { method: 'PUT', pathTemplate: ROUTES.versionManifest };
    try {
      JSON.parse(text);
    } catch (error) {
      throw new OpsManagerValidationError(
        `PUT /versionManifest: the manifest is not JSON: ${(error as Error).message}`,
        context,
      );
    }
    const response = await this.#api.raw('PUT', ROUTES.versionManifest, {}, { rawBody: text });
    return rawDocument(response, 'PUT', ROUTES.versionManifest);
  }

  // S3 blockstore configurations (admin API)

  /** Every S3 blockstore configuration. */
  listS3Configs(): Promise<S3BlockstoreConfig[]> {
    return this.#api.listAll<S3BlockstoreConfig>(ROUTES.s3Configs, {});
  }
  /** One S3 blockstore configuration by its id (a name). */
  getS3Config(s3ConfigId: string): Promise<S3BlockstoreConfig> {
    return this.#api.entity<S3BlockstoreConfig>('GET', ROUTES.s3Config, { s3ConfigId });
  }
  /** POST: see {@link createAlertConfig} about ambiguity. */
  createS3Config(body: S3BlockstoreConfig): Promise<S3BlockstoreConfig> {
    return this.#api.entity<S3BlockstoreConfig>('POST', ROUTES.s3Configs, {}, { body });
  }
  /** PUT the whole configuration. */
  updateS3Config(s3ConfigId: string, body: S3BlockstoreConfig): Promise<S3BlockstoreConfig> {
    return this.#api.entity<S3BlockstoreConfig>('PUT', ROUTES.s3Config, { s3ConfigId }, { body });
  }
  /** Deletes one S3 blockstore configuration. */
  async deleteS3Config(s3ConfigId: string): Promise<void> {
    await this.#api.raw('DELETE', ROUTES.s3Config, { s3ConfigId });
  }
}

function rawDocument(response: HttpResponse, method: string, pathTemplate: string): RawJsonDocument {
  const { text, status } = response;
  if (text.trim() === '') return { text, value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = notJsonReason(error, response);
    throw new OpsManagerResponseError(status, `${method} ${pathTemplate}: the manifest served is not JSON: ${why}`, {
      method,
      pathTemplate,
    });
  }
  if (nestsDeeperThan(value)) {
    throw new OpsManagerResponseError(status, `${method} ${pathTemplate}: the manifest served ${TOO_DEEP}`, {
      method,
      pathTemplate,
    });
  }
  return { text, value };
}

/** Creates a client (validates options, builds the transport; prints the insecure warning when asked to skip TLS checks). */
export function createOpsManagerClient(options: ClientOptions): OpsManagerClient {
  return new OpsManagerClient(options);
}
