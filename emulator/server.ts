/**
 * The request pipeline: authenticate, route (404/405), faults, common query, roles, handler, durability, response.
 * Authentication comes before anything else, so an unauthenticated request never learns or changes anything.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleAdmin } from './admin/admin-api.ts';
import type { Fault, FaultRegistry } from './admin/faults.ts';
import { faultError } from './admin/faults.ts';
import type { RequestLog, RequestLogEntry } from './admin/request-log.ts';
import { authenticate } from './auth/authenticate.ts';
import { challengeHeader } from './auth/digest.ts';
import type { NonceStore } from './auth/nonces.ts';
import { isAllowed, type RoleScope } from './auth/roles.ts';
import { API_BASE_PATH } from './base-path.ts';
import type { EmulatorCore } from './core.ts';
import { ApiError, apiErrors } from './errors.ts';
import { discardBody, parseJsonBody, readBody } from './http/body.ts';
import { checkMediaType } from './http/media-type.ts';
import { type CommonQuery, checkFormatQuery, lenientFormat, parseCommonQuery } from './http/query.ts';
import {
  type ApiResponse,
  CHALLENGE_CONTENT_TYPE,
  errorText,
  type Format,
  send,
  standardHeaders,
  successText,
} from './http/respond.ts';
import { transferCodingError } from './http/transfer-coding.ts';
import type { Router } from './router.ts';
import type { RequestContext, Route } from './routes/context.ts';
import type { ApiKeyRec } from './store/state.ts';

export { API_BASE_PATH } from './base-path.ts';

/** What the pipeline needs. */
export interface PipelineDeps {
  core: EmulatorCore;
  router: Router;
  nonces: NonceStore;
  faults: FaultRegistry;
  log: RequestLog;
  admin: boolean;
  tls: boolean;
  maxBodyBytes: number;
  /** Back to the seed (admin reset). */
  reset: () => Promise<void>;
  /** Reports an unexpected error (one line, no secrets). */
  onError: (message: string) => void;
}

// Unref'd: an injected latency must never keep a stopped emulator's process alive.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

function sendError(res: ServerResponse, err: ApiError, deps: PipelineDeps, format: Format): void {
  const headers = { ...standardHeaders(deps.core.state.serviceVersion), ...err.headers };
  send(res, err.status, errorText(err.toBody(), format), headers);
}

function sendChallenge(res: ServerResponse, stale: boolean, deps: PipelineDeps, format: Format): void {
  send(res, 401, errorText(apiErrors.notAuthorized().toBody(), format), {
    ...standardHeaders(deps.core.state.serviceVersion),
    'Content-Type': CHALLENGE_CONTENT_TYPE,
    'WWW-Authenticate': challengeHeader(deps.nonces.issue(), stale),
  });
}

function resetSocket(res: ServerResponse): void {
  const socket = res.socket as (NonNullable<typeof res.socket> & { resetAndDestroy?: () => void }) | null;
  // A TLS socket has no TCP handle of its own: resetAndDestroy throws ERR_INVALID_HANDLE_TYPE there, so the
  // connection is closed without a RST instead (the client sees the same "socket closed mid-request").
  try {
    if (socket?.resetAndDestroy) socket.resetAndDestroy();
    else socket?.destroy();
  } catch {
    socket?.destroy();
  }
}

function scopeOf(params: Record<string, string>, deps: PipelineDeps): RoleScope {
  if (params.groupId !== undefined) {
    return { groupId: params.groupId, orgId: deps.core.state.groups.get(params.groupId)?.orgId };
  }
  return params.orgId !== undefined ? { orgId: params.orgId } : {};
}

function apiBaseOf(req: IncomingMessage, deps: PipelineDeps): string {
  const host = req.headers.host;
  const local = `${req.socket.localAddress?.includes(':') ? `[${req.socket.localAddress}]` : req.socket.localAddress}:${req.socket.localPort}`;
  const authority = host && /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? host : local;
  return `${deps.tls ? 'https' : 'http'}://${authority}${API_BASE_PATH}`;
}

/**
 * Expect: 100-continue (RFC 9110 section 10.1.1). Node would send `100 Continue` before the handler ran, inviting the
 * body of a request about to be refused (unauthenticated, oversized): the emulator sends it only when it goes on to
 * read the body, and a request answered without it closes its connection (the client may or may not send the body,
 * so nothing after it can be read as the next request).
 */
export function expectContinue(req: IncomingMessage, res: ServerResponse): () => void {
  if (req.headers.expect?.trim().toLowerCase() !== '100-continue') return () => undefined;
  const keepAlive = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
  return () => {
    if (res.headersSent) return;
    res.shouldKeepAlive = keepAlive;
    res.writeContinue();
  };
}

function contextFor(
  req: IncomingMessage,
  accept: () => void,
  deps: PipelineDeps,
  route: Route,
  params: Record<string, string>,
  key: ApiKeyRec | null,
  parts: { path: string; rawQuery: string; query: URLSearchParams },
  body: { consumed: boolean },
): RequestContext {
  let text: Promise<string> | null = null;
  const readText = () => {
    body.consumed = true;
    text ??= readBody(req, deps.maxBodyBytes, accept).then((t) => {
      checkMediaType(req.headers['content-type'], t);
      return t;
    });
    return text;
  };
  let common: CommonQuery | undefined;
  return {
    core: deps.core,
    method: route.method,
    path: parts.path,
    params,
    query: parts.query,
    rawQuery: parts.rawQuery,
    get common() {
      common ??= parseCommonQuery(parts.query);
      return common;
    },
    key,
    remoteAddress: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    apiBase: apiBaseOf(req, deps),
    text: readText,
    json: async () => parseJsonBody(await readText()),
  };
}

/** Applies a fault; true when the response is fully handled (error sent or socket reset). */
async function applyFault(
  fault: Fault,
  res: ServerResponse,
  deps: PipelineDeps,
  format: Format,
): Promise<number | null> {
  if (fault.latencyMs) await sleep(fault.latencyMs);
  if (fault.reset) {
    resetSocket(res);
    return 0;
  }
  if (fault.status !== undefined) {
    const err = faultError(fault);
    sendError(res, err, deps, format);
    return err.status;
  }
  return null;
}

/**
 * The origin form (path and query) of a request target. A server must accept the absolute form too (RFC 9112
 * section 3.2.2: `GET http://host/api/public/v1.0/... HTTP/1.1`, as clients configured with a proxy send it); the
 * Digest `uri` directive is then checked against the same target in either form (auth/authenticate.ts).
 */
export function originForm(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target;
  const rest = target.slice(target.indexOf('//') + 2);
  const at = rest.search(/[/?]/);
  if (at < 0) return '/';
  return rest[at] === '/' ? rest.slice(at) : `/${rest.slice(at)}`;
}

/**
 * The request's one Authorization header, or undefined when there is none or more than one. Node keeps the first of
 * several and drops the rest silently; RFC 9110 allows a single one, so several are treated as no credentials (a
 * challenge) rather than letting whichever comes first decide.
 */
function singleAuthorization(req: IncomingMessage): string | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]?.toLowerCase() === 'authorization') count++;
  }
  return count === 1 ? req.headers.authorization : undefined;
}

/** Handles one request; never throws. */
export async function handleRequest(req: IncomingMessage, res: ServerResponse, deps: PipelineDeps): Promise<void> {
  req.on('error', () => undefined);
  res.on('error', () => undefined);
  const url = originForm(req.url ?? '/');
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const query = new URLSearchParams(rawQuery);
  const asked = lenientFormat(query);
  // Framing comes first: a body whose end cannot be known is answered (and the connection closed) before anything.
  const framing = transferCodingError(req.headers['transfer-encoding']);
  if (framing) return sendError(res, framing, deps, asked);
  const accept = expectContinue(req, res);
  if (rawPath.startsWith('/__emulator/') && deps.admin) return handleAdmin(req, res, rawPath, deps, accept);
  if (rawPath !== API_BASE_PATH && !rawPath.startsWith(`${API_BASE_PATH}/`)) {
    discardBody(req, deps.maxBodyBytes);
    // Still a 404 (without --admin there is no admin API), but one that says why: the README's curl examples of the
    // admin API look like they should work against any running emulator.
    const error = rawPath.startsWith('/__emulator/')
      ? new ApiError(
          404,
          'RESOURCE_NOT_FOUND',
          `Cannot find resource ${rawPath}: the admin API is off (start the emulator with --admin).`,
          [rawPath],
        )
      : apiErrors.resourceNotFound(rawPath);
    return sendError(res, error, deps, asked);
  }
  const path = rawPath.slice(API_BASE_PATH.length) || '/';
  const method = (req.method ?? 'GET').toUpperCase();
  const match = deps.router.match(method, path);
  // The spec lists `pretty` alone for the version-manifest endpoints: `envelope` is not one of their parameters, so it
  // changes none of their answers, errors (a 400, a 401) included.
  const format: Format = match.kind === 'found' && match.route.prettyOnly ? { ...asked, envelope: false } : asked;
  const entry: RequestLogEntry = {
    method,
    path,
    route: match.kind === 'found' ? match.route.template : match.kind === 'method' ? match.template : null,
    status: 0,
    at: new Date(deps.core.now()).toISOString(),
  };
  let challenged = false;
  const body = { consumed: false };
  const finish = (status: number) => {
    entry.status = status;
    deps.log.record(entry, challenged);
    if (!body.consumed) discardBody(req, deps.maxBodyBytes);
  };
  let key: ApiKeyRec | null = null;
  if (!(match.kind === 'found' && match.route.unauthenticated)) {
    const auth = authenticate(singleAuthorization(req), method, url, deps.core.state.apiKeys, deps.nonces);
    if (!auth.ok) {
      challenged = true;
      sendChallenge(res, auth.stale, deps, format);
      return finish(401);
    }
    key = auth.key;
    entry.publicKey = key.publicKey;
  }
  let fault: Fault | null = null;
  let outcome: { ok: ApiResponse } | { err: ApiError };
  try {
    if (match.kind === 'none') throw apiErrors.resourceNotFound(rawPath);
    if (match.kind === 'method') throw apiErrors.methodNotAllowed(method, rawPath, match.allow);
    fault = deps.faults.take(method, path);
    if (fault?.phase === 'before') {
      const status = await applyFault(fault, res, deps, format);
      if (status !== null) return finish(status);
    }
    // As the real product: who may call comes before what the call asks, so a caller without the role learns nothing
    // from a 400 about its query.
    if (key && !isAllowed(key, match.route.need, scopeOf(match.params, deps))) throw apiErrors.userUnauthorized();
    checkFormatQuery(query, match.route.prettyOnly === true);
    const ctx = contextFor(req, accept, deps, match.route, match.params, key, { path, rawQuery, query }, body);
    outcome = { ok: await match.route.handler(ctx) };
  } catch (err) {
    if (!(err instanceof ApiError))
      deps.onError(`unexpected error on ${method} ${path}: ${(err as Error)?.message ?? String(err)}`);
    outcome = { err: err instanceof ApiError ? err : apiErrors.unexpected() };
  }
  if (fault?.phase === 'after') {
    const status = await applyFault(fault, res, deps, format);
    if (status !== null) return finish(status);
  }
  if ('err' in outcome) {
    sendError(res, outcome.err, deps, format);
    return finish(outcome.err.status);
  }
  const ok = outcome.ok;
  let text: string | null;
  try {
    text = successText(ok, format);
  } catch (err) {
    // Rendering failed (a stored value JSON.stringify cannot write): answer 500 rather than leave the client waiting.
    deps.onError(`cannot render the answer to ${method} ${path}: ${(err as Error)?.message ?? String(err)}`);
    sendError(res, apiErrors.unexpected(), deps, format);
    return finish(500);
  }
  send(res, ok.status, text, { ...standardHeaders(deps.core.state.serviceVersion), ...ok.headers });
  finish(ok.status);
}
