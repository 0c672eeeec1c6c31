/**
 * A tiny Digest-protected HTTP(S) server on 127.0.0.1:0 for the client's tests. Its Digest check is written here
 * independently of lambdas/opsman/digest (node:crypto directly), so the two cannot share a bug. Challenges can mimic
 * Ops Manager, Apache mod_auth_digest, or any header text a test supplies.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** One request after authentication, handed to the test's handler. */
export interface ScriptedRequest {
  method: string;
  /** Path plus query, as sent. */
  url: string;
  pathname: string;
  query: URLSearchParams;
  body: string;
  headers: IncomingMessage['headers'];
}

/**
 * What the handler answers: a status and a JSON value (or raw text), or `'reset'` to destroy the socket. `respond`
 * writes the whole response itself instead (headers included): a streamed, endless or lying body.
 */
export type ScriptedReply =
  | {
      status?: number;
      json?: unknown;
      text?: string;
      headers?: Record<string, string>;
      delayMs?: number;
      respond?: (res: ServerResponse) => void;
    }
  | 'reset';

/** Options of the server. */
export interface DigestServerOptions {
  username?: string;
  password?: string;
  realm?: string;
  algorithm?: 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
  /** `auth` (default), a list such as `auth,auth-int`, or null for an RFC 2069 server. */
  qop?: string | null;
  opaque?: string;
  /** Builds the WWW-Authenticate value(s) for a nonce; default: Ops Manager's form. */
  challenge?: (nonce: string, stale: boolean) => string | string[];
  /** Answer authenticated requests. Default: 200 `{}`. */
  handler?: (request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Paths (prefix match) that need no authentication. */
  publicPaths?: string[];
  tls?: { cert: string; key: string };
  /** `increasing` (default): each nc must exceed the last one seen for the nonce, like Apache's AuthDigestNcCheck;
   *  `unique`: any nc not used before is accepted, so concurrent requests may arrive out of order. */
  ncCheck?: 'increasing' | 'unique';
  /** The next N nonces issued are already stale when answered (a server rotating nonces faster than a round trip). */
  staleOnArrival?: number;
  /**
   * Like Apache's mod_auth_digest near a nonce's end: the response to the Nth accepted use of a nonce carries
   * `Authentication-Info: …, nextnonce="…"`, and the old nonce is refused from then on (401, stale=false).
   */
  nextNonceAfter?: number;
}

/** A log line per HTTP exchange. */
export interface ExchangeLog {
  method: string;
  url: string;
  status: number | 'reset';
  authorization: string | undefined;
  nc?: string;
}

/** A running server. */
export interface DigestServer {
  origin: string;
  baseUrl: string;
  log: ExchangeLog[];
  /** 401 challenges sent. */
  challenges(): number;
  /** Every nonce issued so far becomes stale. */
  expireNonces(): void;
  /** From now on the key's password is `password` (a key rotated on the server while a client runs). */
  setPassword(password: string): void;
  close(): Promise<void>;
}

const HASH = { MD5: 'md5', 'MD5-sess': 'md5', 'SHA-256': 'sha256', 'SHA-256-sess': 'sha256' } as const;

function parseAuthorization(header: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]+))/g;
  for (const match of header.replace(/^Digest\s+/i, '').matchAll(re)) {
    params.set((match[1] ?? '').toLowerCase(), (match[2] ?? match[3] ?? '').replace(/\\(.)/g, '$1'));
  }
  return params;
}

/** Starts the server. */
export async function startDigestServer(options: DigestServerOptions = {}): Promise<DigestServer> {
  const username = options.username ?? 'pubkey';
  let password = options.password ?? 'private-key-0000';
  const realm = options.realm ?? 'MMS Public API';
  const algorithm = options.algorithm ?? 'MD5';
  const qop = options.qop === undefined ? 'auth' : options.qop;
  let staleOnArrival = options.staleOnArrival ?? 0;
  const nonces = new Map<string, { lastNc: number; used: Set<number>; stale: boolean; retired?: boolean }>();
  const log: ExchangeLog[] = [];
  const sockets = new Set<Socket>();
  let challenges = 0;
  const h = (data: string) => createHash(HASH[algorithm]).update(data).digest('hex');
  const challengeHeader =
    options.challenge ??
    ((nonce: string, stale: boolean) =>
      `Digest realm="${realm}", domain="", nonce="${nonce}", algorithm=${algorithm}${qop === null ? '' : `, qop="${qop}"`}${options.opaque === undefined ? '' : `, opaque="${options.opaque}"`}, stale=${stale}`);

  function verify(req: IncomingMessage): 'ok' | 'stale' | 'bad' {
    const header = req.headers.authorization;
    if (header === undefined || !/^Digest /i.test(header)) return 'bad';
    const p = parseAuthorization(header);
    const nonce = p.get('nonce') ?? '';
    const state = nonces.get(nonce);
    if (state === undefined || p.get('username') !== username || p.get('realm') !== realm) return 'bad';
    if (state.retired) return 'bad';
    if (p.get('uri') !== req.url) return 'bad';
    let ha1 = h(`${username}:${realm}:${password}`);
    if (algorithm.endsWith('-sess')) ha1 = h(`${ha1}:${nonce}:${p.get('cnonce')}`);
    const ha2 = h(`${req.method}:${req.url}`);
    const expected =
      qop === null
        ? h(`${ha1}:${nonce}:${ha2}`)
        : h(`${ha1}:${nonce}:${p.get('nc')}:${p.get('cnonce')}:${p.get('qop')}:${ha2}`);
    if (p.get('response') !== expected) return 'bad';
    if (options.opaque !== undefined && p.get('opaque') !== options.opaque) return 'bad';
    if (state.stale) return 'stale';
    if (qop !== null) {
      const nc = Number.parseInt(p.get('nc') ?? '', 16);
      if (!/^[0-9a-f]{8}$/.test(p.get('nc') ?? '')) return 'bad';
      if (options.ncCheck === 'unique' ? state.used.has(nc) : !(nc > state.lastNc)) return 'bad';
      state.lastNc = Math.max(nc, state.lastNc);
      state.used.add(nc);
    }
    return 'ok';
  }

  /** After the Nth use of a nonce: retire it and name its successor (rspauth as RFC 7616 section 3.5 computes it). */
  function nextNonceInfo(req: IncomingMessage): string | undefined {
    if (options.nextNonceAfter === undefined || req.headers.authorization === undefined) return undefined;
    const p = parseAuthorization(req.headers.authorization);
    const state = nonces.get(p.get('nonce') ?? '');
    if (state === undefined || state.used.size < options.nextNonceAfter) return undefined;
    state.retired = true;
    const next = randomBytes(12).toString('base64');
    nonces.set(next, { lastNc: 0, used: new Set(), stale: false });
    const ha1 = h(`${username}:${realm}:${password}`);
    const rspauth = h(`${ha1}:${p.get('nonce')}:${p.get('nc')}:${p.get('cnonce')}:auth:${h(`:${req.url}`)}`);
    return `rspauth="${rspauth}", nextnonce="${next}", cnonce="${p.get('cnonce')}", nc=${p.get('nc')}, qop=auth`;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const entry: ExchangeLog = {
      method: req.method ?? '',
      url: req.url ?? '',
      status: 0,
      authorization: req.headers.authorization,
    };
    const nc =
      req.headers.authorization === undefined ? undefined : parseAuthorization(req.headers.authorization).get('nc');
    if (nc !== undefined) entry.nc = nc;
    log.push(entry);
    const isPublic = (options.publicPaths ?? []).some((prefix) => url.pathname.startsWith(prefix));
    const verdict = isPublic ? 'ok' : verify(req);
    if (verdict !== 'ok') {
      const nonce = randomBytes(12).toString('base64');
      nonces.set(nonce, { lastNc: 0, used: new Set(), stale: staleOnArrival > 0 });
      staleOnArrival = Math.max(0, staleOnArrival - 1);
      challenges += 1;
      entry.status = 401;
      res.writeHead(401, {
        'content-type': 'application/json;charset=ISO-8859-1',
        'www-authenticate': challengeHeader(nonce, verdict === 'stale'),
      });
      res.end(
        JSON.stringify({
          detail: 'You are not authorized for this resource.',
          error: 401,
          errorCode: 'USER_UNAUTHORIZED',
          parameters: [],
          reason: 'Unauthorized',
        }),
      );
      return;
    }
    const reply: ScriptedReply = await (options.handler ?? ((): ScriptedReply => ({ json: {} })))({
      method: req.method ?? '',
      url: req.url ?? '',
      pathname: url.pathname,
      query: url.searchParams,
      body: Buffer.concat(chunks).toString('utf8'),
      headers: req.headers,
    });
    if (reply === 'reset') {
      entry.status = 'reset';
      req.socket.destroy();
      return;
    }
    if (reply.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    const status = reply.status ?? 200;
    entry.status = status;
    if (reply.respond !== undefined) {
      reply.respond(res);
      return;
    }
    const text = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
    const info = isPublic ? undefined : nextNonceInfo(req);
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(info === undefined ? {} : { 'authentication-info': info }),
      ...reply.headers,
    });
    res.end(text);
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => req.socket.destroy());
  };
  const server: Server =
    options.tls === undefined ? createHttpServer(listener) : createHttpsServer(options.tls, listener);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/api/public/v1.0`,
    log,
    challenges: () => challenges,
    expireNonces: () => {
      for (const state of nonces.values()) state.stale = true;
    },
    setPassword: (next) => {
      password = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
