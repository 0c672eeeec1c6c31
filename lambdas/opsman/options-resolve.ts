/** Applies defaults to {@link ClientOptions} and validates every field with a precise message. */
import { unparsedUrlShown } from './base-url.ts';
import { OpsManagerValidationError } from './errors.ts';
import {
  type ClientOptions,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_PAGE_SIZE,
  DEFAULT_RETRY_OPTIONS,
  DEFAULT_SETTING_NAMES,
  DEFAULT_STALL_AFTER_MS,
  DEFAULT_TIMEOUT_OPTIONS,
  DEFAULT_USER_AGENT,
  MAX_RESPONSE_BYTES_CEILING,
  type ResolvedClientOptions,
  type SettingNames,
  SYSTEM_CLOCK,
} from './options.ts';

function invalid(message: string): never {
  throw new OpsManagerValidationError(`invalid client options: ${message}`);
}

function integerIn(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The base URL's path without a trailing slash: '' for a base URL at the root of its host (whose pathname is '/'). */
export function basePathOf(base: URL): string {
  return base.pathname === '/' ? '' : base.pathname;
}

function parseBaseUrl(raw: unknown, name: string): URL {
  if (typeof raw !== 'string' || raw.trim() === '')
    invalid(`${name} is required (e.g. https://om:8443/api/public/v1.0)`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    invalid(`${name} is not a URL: ${unparsedUrlShown(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid(`${name} must be http(s), got ${url.protocol}`);
  if (url.search !== '' || url.hash !== '') invalid(`${name} must not carry a query string or a fragment`);
  if (url.username !== '' || url.password !== '')
    invalid(`${name} must not carry credentials; use publicKey/privateKey`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

function key(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') invalid(`${name} is required`);
  if (/[\s"\\]/.test(value) || !/^[\x21-\x7e]+$/.test(value)) {
    invalid(`${name} must be printable ASCII without spaces, quotes or backslashes`);
  }
  return value;
}

/** The setting names with defaults; each must be printable text (it ends up in messages), only requestDeadline empty. */
function settingNamesOf(given: Partial<SettingNames> | undefined): SettingNames {
  const names = { ...DEFAULT_SETTING_NAMES, ...given };
  for (const [field, value] of Object.entries(names)) {
    const pattern = field === 'requestDeadline' ? /^[\x20-\x7e]{0,100}$/ : /^[\x20-\x7e]{1,100}$/;
    if (typeof value !== 'string' || !pattern.test(value)) invalid(`settingNames.${field} must be printable text`);
  }
  return names;
}

/** Resolves options; throws {@link OpsManagerValidationError} (never quoting the private key). */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (options === null || typeof options !== 'object') invalid('an options object is required');
  const settingNames = settingNamesOf(options.settingNames);
  const retry = { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
  const timeouts = { ...DEFAULT_TIMEOUT_OPTIONS, ...options.timeouts };
  integerIn('retry.maxAttempts', retry.maxAttempts, 1, 20);
  integerIn('retry.baseDelayMs', retry.baseDelayMs, 0, 600_000);
  integerIn('retry.maxDelayMs', retry.maxDelayMs, 0, 600_000);
  integerIn('retry.maxRetryAfterMs', retry.maxRetryAfterMs, 0, 3_600_000);
  integerIn('retry.deadlineMs', retry.deadlineMs, 1, 86_400_000);
  integerIn('timeouts.connectMs', timeouts.connectMs, 1, 600_000);
  integerIn('timeouts.headersMs', timeouts.headersMs, 1, 3_600_000);
  integerIn('timeouts.bodyMs', timeouts.bodyMs, 1, 3_600_000);
  const maxConcurrency = integerIn('maxConcurrency', options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, 1, 1024);
  const maxConnections = integerIn('maxConnections', options.maxConnections ?? maxConcurrency, 1, 1024);
  const pageSize = integerIn('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, 500);
  const maxResponseBytes = integerIn(
    'maxResponseBytes',
    options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    1,
    MAX_RESPONSE_BYTES_CEILING,
  );
  if (options.caFile !== undefined && (typeof options.caFile !== 'string' || options.caFile === '')) {
    invalid(`${settingNames.caFile} must be a path to a PEM file`);
  }
  if (options.observer !== undefined && typeof options.observer?.onRequest !== 'function') {
    invalid('observer must have an onRequest(event) function');
  }
  const stallAfterMs = integerIn('stallAfterMs', options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS, 1, 86_400_000);
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  if (typeof userAgent !== 'string' || !/^[\x20-\x7e]+$/.test(userAgent)) invalid('userAgent must be printable ASCII');
  return {
    baseUrl: parseBaseUrl(options.baseUrl, settingNames.baseUrl),
    publicKey: key('publicKey', options.publicKey),
    privateKey: key('privateKey', options.privateKey),
    caFile: options.caFile,
    insecureSkipVerify: options.insecureSkipVerify === true,
    maxConcurrency,
    maxConnections,
    retry,
    timeouts,
    observer: options.observer,
    stallAfterMs,
    userAgent,
    pageSize,
    maxResponseBytes,
    proxy: { ...options.proxy },
    warn: options.warn ?? ((message) => process.stderr.write(`${message}\n`)),
    settingNames,
    clock: options.clock ?? SYSTEM_CLOCK,
    random: options.random ?? Math.random,
  };
}
