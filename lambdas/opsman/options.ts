/** Options of the Ops Manager client, their defaults, and their validation. */
import type { Clock, RequestObserver } from '../core/ports.ts';

/** Retry policy for GET, PUT, PATCH and DELETE (and POST only when it provably never reached the server, or on 429). */
export interface RetryOptions {
  /** Attempts per logical request, the first included. 1 disables retries. Default 4. */
  maxAttempts: number;
  /** Base of the exponential backoff: attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. Default 250 ms. */
  baseDelayMs: number;
  /** Cap of one backoff delay. Default 8 s. */
  maxDelayMs: number;
  /** Cap of a server's Retry-After (seconds or HTTP date). Default 60 s. */
  maxRetryAfterMs: number;
  /**
   * Total budget of one logical request, counted from when it is first sent (time queued behind `maxConcurrency` is
   * not Ops Manager's and is not counted), backoff waits and later attempts included: an attempt in flight is aborted
   * when it runs out, and no retry starts past it. Default 120 s.
   */
  deadlineMs: number;
}

/** Socket-level timeouts (undici), per attempt. undici checks them with a resolution of about one second. */
export interface TimeoutOptions {
  /** TCP + TLS connection establishment. Default 10 s. */
  connectMs: number;
  /**
   * From one attempt's request being written to the response headers; the attempt is then retried (not a POST that
   * may have been applied) while the deadline allows. Time spent waiting for another request's Digest challenge is
   * not covered (nothing was written yet): the deadline is. Default 60 s (Ops Manager is slow under load).
   */
  headersMs: number;
  /** Maximum idle time between two chunks of the response body. Default 60 s. */
  bodyMs: number;
}

/** Proxy settings; each field overrides its environment variable (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, any case). */
export interface ProxyOptions {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/**
 * How the people who configure the client spell its settings, so that messages name what they can change: the CLI's
 * flags (`--ca-file`), the Lambda's environment variables (`OPSMAN_CA_FILE`), or by default the option names.
 */
export interface SettingNames {
  /** The setting that gives {@link ClientOptions.baseUrl}. Default `baseUrl`. */
  baseUrl: string;
  /** The setting that gives {@link ClientOptions.caFile}. Default `caFile`. */
  caFile: string;
  /** The setting that gives {@link ClientOptions.insecureSkipVerify}. Default `insecureSkipVerify`. */
  insecureSkipVerify: string;
  /**
   * The setting that gives `retry.deadlineMs`. Default `retry.deadlineMs`; empty when the caller's users cannot
   * change it (the message then gives only the value).
   */
  requestDeadline: string;
  /**
   * The settings that give {@link ClientOptions.publicKey} and {@link ClientOptions.privateKey}, named when Ops Manager
   * refuses them. Default `publicKey and privateKey`.
   */
  apiKey: string;
}

/** Default {@link SettingNames}: the option names themselves (for programs that call the client directly). */
export const DEFAULT_SETTING_NAMES: Readonly<SettingNames> = Object.freeze({
  baseUrl: 'baseUrl',
  caFile: 'caFile',
  insecureSkipVerify: 'insecureSkipVerify',
  requestDeadline: 'retry.deadlineMs',
  apiKey: 'publicKey and privateKey',
});

/** Everything `createOpsManagerClient` accepts. Only baseUrl, publicKey and privateKey are required. */
export interface ClientOptions {
  /** The API base, e.g. `https://om.example.com:8443/api/public/v1.0`; no query string. */
  baseUrl: string;
  /** Public key of the API key (the Digest user name). */
  publicKey: string;
  /** Private key of the API key (the Digest password). Never logged, never put in an error. */
  privateKey: string;
  /** PEM file of a private CA, added to Node's default CAs (and to NODE_EXTRA_CA_CERTS, which Node honours itself). */
  caFile?: string;
  /** Disables TLS verification. Prints a warning to stderr on every client creation. Default false. */
  insecureSkipVerify?: boolean;
  /** Cap of in-flight requests across the whole client. Default 8. */
  maxConcurrency?: number;
  /** Cap of open connections per origin. Default: maxConcurrency. */
  maxConnections?: number;
  /** Retry policy; missing fields take {@link DEFAULT_RETRY_OPTIONS}. */
  retry?: Partial<RetryOptions>;
  /** Socket timeouts; missing fields take {@link DEFAULT_TIMEOUT_OPTIONS}. */
  timeouts?: Partial<TimeoutOptions>;
  /** Told about every logical request (method, path template, status, attempts, duration), and about stalls. */
  observer?: RequestObserver;
  /** A request without an answer for this long is reported to `observer.onStall`, once per stall. Default 15 s. */
  stallAfterMs?: number;
  /** User-Agent header. Default {@link DEFAULT_USER_AGENT}. */
  userAgent?: string;
  /** itemsPerPage of list requests, 1..500. Default 500. */
  pageSize?: number;
  /**
   * Largest response body read, in bytes, per HTTP response; a larger one fails its request with
   * `OpsManagerResponseTooLargeError` instead of filling the memory. Default {@link DEFAULT_MAX_RESPONSE_BYTES}.
   */
  maxResponseBytes?: number;
  /** Proxy overrides; by default the environment decides. */
  proxy?: ProxyOptions;
  /** Where warnings go (insecureSkipVerify). Default: a line on process.stderr. */
  warn?: (message: string) => void;
  /** How messages name the settings (a CLI passes its flags); missing fields take {@link DEFAULT_SETTING_NAMES}. */
  settingNames?: Partial<SettingNames>;
  /** Time source for backoff waits and the deadline; tests inject one that does not really sleep. */
  clock?: ClientClock;
  /** Random source in [0, 1) for the backoff jitter. Default Math.random. */
  random?: () => number;
}

/** Default retry policy. */
export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  deadlineMs: 120_000,
});

/** Default socket timeouts. */
export const DEFAULT_TIMEOUT_OPTIONS: Readonly<TimeoutOptions> = Object.freeze({
  connectMs: 10_000,
  headersMs: 60_000,
  bodyMs: 60_000,
});

/** Default wait without an answer before a request is reported as stalled. */
export const DEFAULT_STALL_AFTER_MS = 15_000;

/**
 * Retry waits at least this long are worth telling a person (the CLI's notice, the Lambda's warning): the client's own
 * backoff is mostly shorter, a server's Retry-After or a late attempt's backoff is not.
 */
export const RETRY_WAIT_NOTICE_MIN_MS = 1_000;

/** Default cap of in-flight requests. */
export const DEFAULT_MAX_CONCURRENCY = 8;
/** Default (and maximum) itemsPerPage. */
export const DEFAULT_PAGE_SIZE = 500;
/**
 * Default cap of one response body: 32 MiB. No real Ops Manager answer comes near it: a list page holds at most 500
 * items, and 500 events with their `raw` documents (the largest items the client lists, a few KB each) make a few MB;
 * the version manifest, the largest single document, is a few MB of JSON. The cap still leaves room for a manifest
 * several times today's. Its other side is the Lambda's 1,024 MB: with the default 8 requests in flight, eight bodies
 * at the cap hold 256 MiB of bytes, plus their decoded text one at a time, which still fits beside the run's own data;
 * an unbounded body (a 2 GB manifest from a broken proxy) would not, and would kill the process instead of one request.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/**
 * Highest accepted `maxResponseBytes`: 256 MiB, a quarter of the Lambda's memory (V8 cannot even hold a string of
 * more than about 512 M characters, so a larger body could never be decoded anyway).
 */
export const MAX_RESPONSE_BYTES_CEILING = 256 * 1024 * 1024;
/** Default User-Agent. */
export const DEFAULT_USER_AGENT = 'opsman-gitops/0.1 (+undici)';

/** Options with every default applied and every value checked. */
export interface ResolvedClientOptions {
  baseUrl: URL;
  publicKey: string;
  privateKey: string;
  caFile: string | undefined;
  insecureSkipVerify: boolean;
  maxConcurrency: number;
  maxConnections: number;
  retry: RetryOptions;
  timeouts: TimeoutOptions;
  observer: RequestObserver | undefined;
  stallAfterMs: number;
  userAgent: string;
  pageSize: number;
  maxResponseBytes: number;
  proxy: ProxyOptions;
  warn: (message: string) => void;
  settingNames: SettingNames;
  clock: ClientClock;
  random: () => number;
}

/**
 * The client's time source: the core's {@link Clock}, whose `sleep` may also take a signal. The real clock then ends
 * the wait and clears its timer as soon as the signal aborts: a backoff wait of a stopped request must not keep the
 * process alive (a CLI stopped by Ctrl-C would otherwise exit only when a 60 s Retry-After has passed). An injected
 * clock may ignore the signal: the caller does not rely on it to stop waiting.
 */
export interface ClientClock {
  now(): Date;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock. */
export const SYSTEM_CLOCK: ClientClock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
