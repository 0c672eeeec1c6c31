/** Writing responses: the real product's headers, pretty printing, and the envelope. */
import type { ServerResponse } from 'node:http';
import type { ErrorBody } from '../errors.ts';
import type { ServiceVersion } from '../store/state.ts';

/** What a handler answers. `body` undefined means no body; `rawJson` is sent byte-exact unless pretty is asked. */
export interface ApiResponse {
  status: number;
  body?: unknown;
  rawJson?: string;
  /** list: the envelope adds `status` to the body; single: the envelope wraps it as `{status, content}`. */
  kind?: 'list' | 'single';
  headers?: Record<string, string>;
}

/** Formatting asked by the request. */
export interface Format {
  pretty: boolean;
  envelope: boolean;
}

/** Content type of the 401 challenge, as the real product sends it. */
export const CHALLENGE_CONTENT_TYPE = 'application/json;charset=ISO-8859-1';

/** The headers every response carries. */
export function standardHeaders(version: ServiceVersion): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Vendor-Service-Version': `gitHash=${version.gitHash}; versionString=${version.versionString}`,
    'Strict-Transport-Security': 'max-age=300',
    Vary: 'Accept-Encoding',
  };
}

function serialise(value: unknown, pretty: boolean): string {
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

/** The body text of a success response, or null for no body. */
export function successText(r: ApiResponse, f: Format): string | null {
  // A route that ignores `envelope` (the manifest endpoints: `prettyOnly`) gets a format with it off (server.ts).
  const envelope = f.envelope;
  if (r.rawJson !== undefined && !envelope) return f.pretty ? serialise(JSON.parse(r.rawJson), true) : r.rawJson;
  const body = r.rawJson !== undefined ? JSON.parse(r.rawJson) : r.body;
  if (!envelope) return body === undefined ? null : serialise(body, f.pretty);
  if (r.kind === 'list' && typeof body === 'object' && body !== null) {
    return serialise({ ...(body as Record<string, unknown>), status: r.status }, f.pretty);
  }
  return serialise(body === undefined ? { status: r.status } : { status: r.status, content: body }, f.pretty);
}

// Sockets answered with `Connection: close`: Node may still parse what follows on them (a body read to the end of the
// connection, a request after it) and report it as a client error, whose answer must not follow the one already sent.
const closing = new WeakSet<object>();

/** True when an answer with `Connection: close` was written on `socket`: nothing more may be written to it. */
export function answeredForGood(socket: object): boolean {
  return closing.has(socket);
}

/** Writes a response with the standard headers. */
export function send(res: ServerResponse, status: number, text: string | null, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  if (headers.Connection === 'close' && res.socket) closing.add(res.socket);
  const buf = text === null ? null : Buffer.from(text, 'utf8');
  res.writeHead(status, { ...headers, 'Content-Length': String(buf?.length ?? 0) });
  res.end(buf ?? undefined);
}

/** The text of an error body; with the envelope it is wrapped as `{status, content}` like any single result. */
export function errorText(body: ErrorBody, f: Format): string {
  return serialise(f.envelope ? { status: body.error, content: body } : body, f.pretty);
}
