/**
 * The admin API under `/__emulator/` (only with `admin: true`, no authentication): reset to the seed, faults, the
 * request log, nonce expiry, an API key's rotation, and the members a newer Ops Manager would answer for an alert config
 * (newer-members.ts). It is never reachable under the public API base.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, apiErrors } from '../errors.ts';
import { discardBody, parseJsonBody, readBody } from '../http/body.ts';
import { errorText, send } from '../http/respond.ts';
import type { PipelineDeps } from '../server.ts';
import { parseFault } from './faults.ts';
import { parseNewerMembers, setNewerMembers } from './newer-members.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** The methods of each fixed admin path: another method on one of them is a 405 naming these, not a 404. */
const ADMIN_METHODS = new Map<string, string[]>([
  ['/__emulator/reset', ['POST']],
  ['/__emulator/faults', ['POST', 'DELETE']],
  ['/__emulator/requests', ['GET', 'DELETE']],
  ['/__emulator/nonces/expire', ['POST']],
]);
const API_KEY_PATH = /^\/__emulator\/api-keys\/([A-Za-z0-9]{1,64})$/;
const NEWER_MEMBERS_PATH = /^\/__emulator\/groups\/([0-9a-f]{24})\/alertConfigs\/([0-9a-f]{24})\/newer-members$/;

/** The methods `path` answers to (PUT for the two parameterised paths), or undefined for no admin path. */
function allowedMethods(path: string): string[] | undefined {
  if (API_KEY_PATH.test(path) || NEWER_MEMBERS_PATH.test(path)) return ['PUT'];
  return ADMIN_METHODS.get(path);
}

async function route(
  method: string,
  path: string,
  req: IncomingMessage,
  deps: PipelineDeps,
  accept: () => void,
): Promise<unknown> {
  const trimmed = path.replace(/\/+$/, '');
  const key = `${method} ${trimmed}`;
  const apiKey = method === 'PUT' ? API_KEY_PATH.exec(trimmed) : null;
  if (apiKey)
    return rotateKey(apiKey[1] as string, parseJsonBody(await readBody(req, deps.maxBodyBytes, accept)), deps);
  const newer = method === 'PUT' ? NEWER_MEMBERS_PATH.exec(trimmed) : null;
  if (newer) {
    const members = parseNewerMembers(parseJsonBody(await readBody(req, deps.maxBodyBytes, accept)));
    const cfg = deps.core.state.alertConfigs.get(newer[1] as string)?.get(newer[2] as string);
    if (cfg === undefined) throw apiErrors.resourceNotFound(path);
    setNewerMembers(cfg, members);
    return {};
  }
  switch (key) {
    case 'POST /__emulator/reset':
      discardBody(req, deps.maxBodyBytes);
      await deps.reset();
      return {};
    case 'POST /__emulator/faults': {
      const fault = parseFault(parseJsonBody(await readBody(req, deps.maxBodyBytes, accept)));
      return { id: deps.faults.add(fault) };
    }
    case 'DELETE /__emulator/faults':
      discardBody(req, deps.maxBodyBytes);
      deps.faults.clear();
      return {};
    case 'GET /__emulator/requests':
      return deps.log.toJSON();
    case 'DELETE /__emulator/requests':
      deps.log.clear();
      return {};
    case 'POST /__emulator/nonces/expire':
      discardBody(req, deps.maxBodyBytes);
      deps.nonces.expireAll();
      return {};
    default: {
      discardBody(req, deps.maxBodyBytes);
      const allow = allowedMethods(trimmed);
      if (allow !== undefined) throw apiErrors.methodNotAllowed(method, path, allow);
      throw apiErrors.resourceNotFound(path);
    }
  }
}

/**
 * Gives an API key a new private key (a rotation in Ops Manager's UI): requests signed with the old one are refused
 * from now on. In memory only: a reset or a restart brings back the seed's (or the data file's) key.
 */
function rotateKey(publicKey: string, body: unknown, deps: PipelineDeps): Record<string, never> {
  const record = deps.core.state.apiKeys.get(publicKey);
  if (record === undefined) throw apiErrors.resourceNotFound(`/__emulator/api-keys/${publicKey}`);
  const privateKey = (body as { privateKey?: unknown } | null)?.privateKey;
  if (typeof privateKey !== 'string' || !/^[\x21-\x7e]+$/.test(privateKey)) {
    throw apiErrors.invalidJsonAttribute('privateKey');
  }
  record.privateKey = privateKey;
  return {};
}

/**
 * Whether a web page sent the request: browsers add `Origin` to every POST, PUT and DELETE a page makes (and to
 * cross-origin fetches), and no web page can leave it out, while curl and Node's fetch send none. The admin API has
 * no authentication, so without this any page open in the developer's browser could reset the emulator (its data file
 * too) or inject faults with a simple cross-site POST, which needs no CORS pre-flight; binding to 127.0.0.1 does not
 * stop that, since the browser runs on the same machine.
 */
function fromBrowserPage(req: IncomingMessage): boolean {
  return req.headers.origin !== undefined;
}

/** Handles one admin request; never throws. */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: PipelineDeps,
  accept: () => void = () => undefined,
): Promise<void> {
  try {
    if (fromBrowserPage(req)) {
      discardBody(req, deps.maxBodyBytes);
      throw new ApiError(
        403,
        'FORBIDDEN',
        'The admin API does not answer requests made by web pages (an Origin header): use curl or a program.',
      );
    }
    const body = await route((req.method ?? 'GET').toUpperCase(), path, req, deps, accept);
    send(res, 200, JSON.stringify(body), JSON_HEADERS);
  } catch (err) {
    const apiErr = err instanceof ApiError ? err : apiErrors.unexpected();
    if (!(err instanceof ApiError)) deps.onError(`admin API: ${(err as Error)?.message ?? String(err)}`);
    // The error's own headers too: a 405's Allow, a 413's Connection: close.
    send(res, apiErr.status, errorText(apiErr.toBody(), { pretty: false, envelope: false }), {
      ...JSON_HEADERS,
      ...apiErr.headers,
    });
  }
}
