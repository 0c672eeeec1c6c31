/**
 * The Ops Manager Public API emulator, in-process: `startEmulator(options)` resolves to `{ url, origin, close() }`.
 * Built from the spec and the reference only; it imports nothing from lambdas/.
 */
import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import { describeFsCause } from '../shared/fs-cause.ts';
import { makeDirectories } from '../shared/make-directories.ts';
import { FaultRegistry } from './admin/faults.ts';
import { RequestLog } from './admin/request-log.ts';
import { NonceStore } from './auth/nonces.ts';
import { EmulatorCore } from './core.ts';
import { ApiError, apiErrors, EmulatorError } from './errors.ts';
import { clientErrorFor, clientErrorResponse } from './http/client-error.ts';
import { answeredForGood, errorText, send, standardHeaders } from './http/respond.ts';
import { Router } from './router.ts';
import { ROUTES } from './routes/index.ts';
import { API_BASE_PATH, handleRequest, type PipelineDeps } from './server.ts';
import { DataFileWriter, dataFileText, loadDataFile, writeAtomic } from './store/data-file.ts';
import { DEFAULT_STORE_LIMITS } from './store/limits.ts';
import { buildState } from './store/seed-build.ts';
import { EXAMPLE_SEED_PATH, readSeed } from './store/seed-read.ts';
import { toSeedDocument } from './store/snapshot.ts';
import type { State } from './store/state.ts';

export { DataFileError, EmulatorError, SeedError } from './errors.ts';
export { API_BASE_PATH } from './server.ts';
export { EXAMPLE_SEED_PATH } from './store/seed-read.ts';

/** Options of startEmulator. */
export interface EmulatorOptions {
  /** TCP port; 0 picks a free one. */
  port?: number;
  /** Interface to listen on. */
  host?: string;
  /** A seed file path (JSON or YAML) or a seed object; default: emulator/seeds/example.yaml. */
  seed?: string | object;
  /** Persist every mutation to this file (atomic writes) and resume from it on start. */
  dataFile?: string;
  /** Serve the admin API under /__emulator/. */
  admin?: boolean;
  /** Lifetime of a Digest nonce in milliseconds. */
  nonceTtlMs?: number;
  /** Serve HTTPS with this certificate and key (PEM text). */
  tls?: { cert: string; key: string };
  /** Largest accepted request body in bytes (413 beyond). */
  maxBodyBytes?: number;
  /**
   * How long a request may take to arrive, headers and body (408 and the connection closed beyond). Node's default
   * of 300 s lets a client that stalls mid-body hold a connection and its partial body for five minutes.
   */
  requestTimeoutMs?: number;
  /**
   * Most alert configurations a client may store in one project (a non-negative integer); a POST beyond answers 400
   * MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED. The seed and the data file are not capped.
   */
  maxAlertConfigsPerGroup?: number;
  /** Where unexpected errors are reported (one line each, never a secret). */
  onError?: (message: string) => void;
}

/** Defaults of every option. */
export const DEFAULT_EMULATOR_OPTIONS = {
  port: 0,
  host: '127.0.0.1',
  admin: false,
  nonceTtlMs: 300_000,
  maxBodyBytes: 16 * 1024 * 1024,
  requestTimeoutMs: 60_000,
  maxAlertConfigsPerGroup: DEFAULT_STORE_LIMITS.maxAlertConfigsPerGroup,
  onError: (message: string) => process.stderr.write(`opsman-gitops emulator: ${message}\n`),
} as const;

/** A running emulator. */
export interface RunningEmulator {
  /** Base URL of the API, ending in /api/public/v1.0. */
  url: string;
  /** Scheme, host and port, e.g. http://127.0.0.1:41234 (the admin API lives at `${origin}/__emulator/`). */
  origin: string;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const seedCache = new Map<string, Record<string, unknown>>();

/**
 * The canonical seed document (ids fixed, detached from any state), and a state built from it when one was built on
 * the way. Cached for the example seed so each start stays fast.
 */
async function canonicalSeed(
  seed: string | object | undefined,
): Promise<{ doc: Record<string, unknown>; state?: State }> {
  const cacheKey = seed === undefined ? EXAMPLE_SEED_PATH : undefined;
  const cached = cacheKey ? seedCache.get(cacheKey) : undefined;
  if (cached) return { doc: cached };
  const { doc, source } = await readSeed(seed);
  const state = buildState(doc, source);
  const canonical = structuredClone(toSeedDocument(state));
  if (cacheKey) seedCache.set(cacheKey, canonical);
  return { doc: canonical, state };
}

/** Node's text without its `listen ` prefix and the address it may end with (said better around it). */
function nodeText(err: NodeJS.ErrnoException): string {
  // Node's text repeats the code and the address (without the port when it is 0): said once, in words, around it.
  if (err.code === 'EADDRNOTAVAIL') return 'no network interface of this machine has that address (EADDRNOTAVAIL)';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return `not an IP address, and no host of that name was found (${err.code})`;
  return err.message.replace(/^(listen|getaddrinfo) /, '').replace(/ \S+:\d+$/, '');
}

/**
 * Listens on host:port; a failure names the address (Node's `listen EADDRINUSE: address already in use` names the
 * port only sometimes, and the host never) as an EmulatorError with code ADDRESS_IN_USE or LISTEN_FAILED.
 */
function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => {
      const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
      reject(
        err.code === 'EADDRINUSE'
          ? new EmulatorError(
              'ADDRESS_IN_USE',
              `${address} is already in use (EADDRINUSE)`,
              { host, port },
              { cause: err },
            )
          : new EmulatorError(
              'LISTEN_FAILED',
              `cannot listen on ${address}: ${nodeText(err)}`,
              { host, port },
              { cause: err },
            ),
      );
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Starts an emulator; rejects with SeedError or DataFileError on bad input, EmulatorError INVALID_OPTION on a bad
 * limit, or the listen error.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const o = { ...DEFAULT_EMULATOR_OPTIONS, ...options };
  if (!Number.isSafeInteger(o.maxAlertConfigsPerGroup) || o.maxAlertConfigsPerGroup < 0) {
    throw new EmulatorError(
      'INVALID_OPTION',
      `maxAlertConfigsPerGroup must be a non-negative integer, got ${String(o.maxAlertConfigsPerGroup)}`,
      { option: 'maxAlertConfigsPerGroup' },
    );
  }
  const { doc: seedDoc, state: built } = await canonicalSeed(options.seed);
  const fresh = (): State => buildState(structuredClone(seedDoc), '(seed)');
  let state: State;
  if (o.dataFile) {
    const loaded = await loadDataFile(o.dataFile);
    state = loaded ?? built ?? fresh();
    if (!loaded) {
      const file = o.dataFile;
      // A missing directory is created (`--data-file .emulator/data.json` on a fresh checkout), owner-only: the data
      // file holds secrets in clear.
      const create = async () => {
        await makeDirectories(dirname(file), 0o700);
        await writeAtomic(file, dataFileText(state));
      };
      await create().catch((err: NodeJS.ErrnoException) => {
        throw new EmulatorError(
          'DATA_FILE_UNWRITABLE',
          `cannot create data file ${file}: ${describeFsCause(file, err, 'write')}`,
          { file },
          { cause: err },
        );
      });
    }
  } else state = built ?? fresh();
  const dataFile = o.dataFile;
  const holder: { core?: EmulatorCore } = {};
  const writer = dataFile ? new DataFileWriter(dataFile, () => (holder.core as EmulatorCore).state) : null;
  const core = new EmulatorCore(state, writer, { maxAlertConfigsPerGroup: o.maxAlertConfigsPerGroup });
  holder.core = core;
  const deps: PipelineDeps = {
    core,
    router: new Router(ROUTES),
    nonces: new NonceStore(o.nonceTtlMs),
    faults: new FaultRegistry(),
    log: new RequestLog(),
    admin: o.admin,
    tls: !!o.tls,
    maxBodyBytes: o.maxBodyBytes,
    onError: o.onError,
    reset: async () => {
      core.state = fresh();
      deps.faults.clear();
      deps.log.clear();
      await core.commit();
    },
  };
  const handler = (req: Parameters<typeof handleRequest>[0], res: Parameters<typeof handleRequest>[1]) => {
    handleRequest(req, res, deps).catch((err: unknown) => o.onError(`request failed: ${(err as Error)?.message}`));
  };
  // Node checks request and headers timeouts on a timer (every 30 s by default): a shorter limit needs a shorter beat.
  const timing = { connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(o.requestTimeoutMs / 4))) };
  const server: Server = o.tls
    ? (createHttpsServer({ ...timing, cert: o.tls.cert, key: o.tls.key }, handler) as unknown as Server)
    : createHttpServer(timing, handler);
  // CONNECT asks for a tunnel, which the API is not: Node hands the raw socket over and, without a listener, closes it
  // without a word. Answered 405 like any method the API does not serve (no resource allows it: Allow is empty).
  server.on('connect', (req: Parameters<typeof handleRequest>[0], socket: Duplex) => {
    const target = String(req.url ?? '');
    const err = apiErrors.methodNotAllowed('CONNECT', target, []);
    socket.on('error', () => undefined);
    socket.end(clientErrorResponse(err, core.state.serviceVersion));
  });
  // Expect: 100-continue reaches the pipeline, which sends 100 only when it reads the body (server.ts expectContinue).
  server.on('checkContinue', handler);
  // Any other expectation is 417 (RFC 9110 section 10.1.1), with the five-field body rather than Node's empty one.
  server.on(
    'checkExpectation',
    (req: Parameters<typeof handleRequest>[0], res: Parameters<typeof handleRequest>[1]) => {
      const err = new ApiError(
        417,
        'EXPECTATION_FAILED',
        `Expect ${String(req.headers.expect)} is not supported; only 100-continue is.`,
        [String(req.headers.expect)],
      );
      req.resume();
      res.shouldKeepAlive = false;
      send(res, 417, errorText(err.toBody(), { pretty: false, envelope: false }), {
        ...standardHeaders(core.state.serviceVersion),
      });
    },
  );
  // Idle keep-alive connections live 30 s (Node's default 5 s races clients that reuse a connection just as it closes).
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = o.requestTimeoutMs;
  // Node checks both timeouts on one timer; headers get the same bound (never longer than the whole request).
  server.headersTimeout = Math.min(server.headersTimeout, o.requestTimeoutMs);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // The request was already answered for good (Connection: close); Node closes the socket once that is written.
    if (answeredForGood(socket)) return;
    // Node's own answers (a handler replaces them) with the five-field body: a request too slow to arrive (408),
    // headers too large (431), anything it cannot parse (400).
    const answer = clientErrorResponse(clientErrorFor(err, o.requestTimeoutMs), core.state.serviceVersion);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (socket.writable) socket.end(answer);
      else socket.destroy();
    };
    // A pipelined request Node cannot parse behind one still being answered: that answer goes first, then this one
    // (ending it at once cut the earlier answer off). When the broken part is that request's own body, now. `_httpMessage` is the response in progress on the socket, the
    // field Node's own clientError handler reads.
    const current = (socket as typeof socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (current?.req?.complete && !current.writableFinished && !current.destroyed) {
      current.once('finish', finish);
      current.once('close', finish);
    } else finish();
  });
  const address = await listen(server, o.port, o.host);
  server.on('error', (err) => o.onError(`server error: ${err.message}`));
  const host = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const origin = `${o.tls ? 'https' : 'http'}://${host}:${address.port}`;
  let closed: Promise<void> | null = null;
  return {
    url: `${origin}${API_BASE_PATH}`,
    origin,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
