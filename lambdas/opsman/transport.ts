/**
 * The undici dispatcher of one client: a keep-alive Agent with a bounded connection count, or an EnvHttpProxyAgent
 * when a proxy is configured (HTTP_PROXY / HTTPS_PROXY, NO_PROXY honoured). TLS: Node's default CAs, plus NODE_EXTRA_CA_CERTS
 * (Node adds it itself; when `caFile` replaces the CA list, the client adds it back), plus `caFile`. Certificates are
 * verified unless `insecureSkipVerify` says otherwise; NODE_TLS_REJECT_UNAUTHORIZED is not read.
 */
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { isLoopbackHost } from '../../shared/loopback.ts';
import { NotRegularFileError, readRegularFileSync } from '../../shared/regular-file.ts';
import { OpsManagerValidationError } from './errors.ts';
import { DEFAULT_SETTING_NAMES, type ResolvedClientOptions, type SettingNames } from './options.ts';
import { proxyClientFactory } from './proxy-tunnel.ts';
import { Agent, EnvHttpProxyAgent } from './undici-parts.ts';

/** Idle keep-alive sockets are closed after this long (below the usual 60 s of servers and load balancers). */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;

/** The warning printed on every client creation with insecureSkipVerify, naming the settings as `names` spell them. */
export function insecureWarning(names: Pick<SettingNames, 'caFile' | 'insecureSkipVerify'>): string {
  return `WARNING: opsman-gitops: TLS certificate verification is DISABLED (${names.insecureSkipVerify}). Anyone on the network path can read and alter Ops Manager traffic. Use ${names.caFile} with your CA's certificate instead.`;
}

/** Whether `url` names this machine (`localhost`, 127.0.0.0/8, ::1): plain HTTP to it never crosses a network. */
export function isLoopback(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/**
 * The warning printed on every client creation with an `http://` base URL to another machine. Ops Manager's own
 * default port serves plain HTTP, so it is allowed; but the notification secrets of every alert config write (webhook
 * URLs, tokens, keys) then cross the network in clear, which is no better than turning verification off.
 */
export function plainHttpWarning(url: URL, names: Pick<SettingNames, 'baseUrl' | 'caFile'>): string {
  return `WARNING: opsman-gitops: ${url.origin} is plain HTTP (${names.baseUrl}): the notification secrets sent to Ops Manager (webhook URLs, tokens, keys) and every answer cross the network unencrypted, and anyone on the path can read and alter them. Use https:// (with ${names.caFile} for a private CA).`;
}

/** The warning with the option names (a program that calls the client directly). */
export const INSECURE_WARNING = insecureWarning(DEFAULT_SETTING_NAMES);

/** Why a PEM file could not be read, in words (the path is quoted by the caller). */
const READ_FAILURES: Record<string, string> = {
  ENOENT: 'it does not exist',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
};

function readPem(path: string, what: string): string {
  let text: string;
  try {
    // A FIFO or a device is refused: a synchronous read of a FIFO with no writer would block the process for good.
    text = readRegularFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      throw new OpsManagerValidationError(`cannot read ${what} ${JSON.stringify(path)}: ${error.message}`);
    }
    const code = (error as { code?: string }).code ?? 'unknown error';
    const words = READ_FAILURES[code];
    throw new OpsManagerValidationError(
      `cannot read ${what} ${JSON.stringify(path)}: ${words === undefined ? code : `${words} (${code})`}`,
    );
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new OpsManagerValidationError(
      `${what} ${JSON.stringify(path)} contains no PEM certificate (no "-----BEGIN CERTIFICATE-----" line)`,
    );
  }
  return text;
}

/**
 * The CA list for `caFile`, or undefined to keep Node's defaults (which already include NODE_EXTRA_CA_CERTS).
 * `caFileName` is how messages name the setting (`--ca-file` for the CLI).
 */
export function buildCaList(
  caFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  caFileName: string = DEFAULT_SETTING_NAMES.caFile,
): string[] | undefined {
  if (caFile === undefined) return undefined;
  const list = [...rootCertificates, readPem(caFile, caFileName)];
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (extra !== undefined && extra !== '') list.push(readPem(extra, 'NODE_EXTRA_CA_CERTS'));
  return list;
}

/** Whether requests go through a proxy (options or the environment): then only the proxy is reached directly. */
export function proxyConfigured(options: ResolvedClientOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  const { proxy } = options;
  return [proxy.httpProxy, proxy.httpsProxy, env.HTTP_PROXY, env.http_proxy, env.HTTPS_PROXY, env.https_proxy].some(
    (value) => value !== undefined && value !== '',
  );
}

/**
 * Builds the dispatcher; prints the insecure warning when verification is off, and the plain-HTTP one for an `http://`
 * base URL to another machine, unless `warn` is false (a client renewing its connections has warned once already).
 */
export function createDispatcher(
  options: ResolvedClientOptions,
  env: NodeJS.ProcessEnv = process.env,
  warn = true,
): Dispatcher {
  if (options.insecureSkipVerify && warn) options.warn(insecureWarning(options.settingNames));
  if (options.baseUrl.protocol === 'http:' && !isLoopback(options.baseUrl) && warn) {
    options.warn(plainHttpWarning(options.baseUrl, options.settingNames));
  }
  const ca = buildCaList(options.caFile, env, options.settingNames.caFile);
  const tls = {
    timeout: options.timeouts.connectMs,
    ...(ca === undefined ? {} : { ca }),
    // Always explicit: left unset, Node takes it from NODE_TLS_REJECT_UNAUTHORIZED, and `=0` there would turn
    // verification off with no word from this client (Node's own warning is gone with --no-warnings or
    // NODE_NO_WARNINGS). Verification is off only through insecureSkipVerify, which warns on every creation.
    rejectUnauthorized: !options.insecureSkipVerify,
  };
  const common = {
    connections: options.maxConnections,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyMs,
    connect: tls,
  };
  if (!proxyConfigured(options, env)) return new Agent(common);
  return new EnvHttpProxyAgent({
    ...common,
    // A CONNECT the proxy drops fails the request instead of looping (proxy-tunnel.ts).
    clientFactory: proxyClientFactory,
    requestTls: tls,
    proxyTls: tls,
    ...(options.proxy.httpProxy === undefined ? {} : { httpProxy: options.proxy.httpProxy }),
    ...(options.proxy.httpsProxy === undefined ? {} : { httpsProxy: options.proxy.httpsProxy }),
    ...(options.proxy.noProxy === undefined ? {} : { noProxy: options.proxy.noProxy }),
  });
}
