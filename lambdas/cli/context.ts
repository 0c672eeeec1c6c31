/**
 * What every command gets: the options, the process window, the output style, and the injected emulator starter.
 * Also builds a run session: the real adapters wired for one reconcile, closed by the caller.
 */

import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { describeFsCause } from '../../shared/fs-cause.ts';
import { closest } from '../../shared/suggest.ts';
import { FingerprintKeyError, parseFingerprintKey } from '../adapters/local/fingerprint-key.ts';
import { printable } from '../core/printable.ts';
import { type Style, styleFor } from '../core/render/style.ts';
import type { RunDependencies } from '../core/run-types.ts';
import { CliError, EXIT, UsageError } from './errors.ts';
import type { CliIo, TextSink } from './io.ts';
import type { CliOptions } from './options.ts';
import { RetryNotices } from './retry-notices.ts';
import { ApiCallCounter, RecordingArchiveStore, SYSTEM_CLOCK, stderrReporter } from './runtime.ts';
import { StallNotices, stallNoticeAfterMs } from './stall-notices.ts';
import { type ApiClient, apiClient, desiredSource, localStores, requestDeadlineMs, secretResolver } from './wiring.ts';

/** Starts the Ops Manager emulator in-process (injected so lambdas/ never imports emulator/). */
export type StartEmulator = (options: Record<string, unknown>) => Promise<{ url: string; close(): Promise<void> }>;

/**
 * Where the Ops Manager client's warnings go: one line each on stderr, made printable. A warning may one day quote a
 * setting, a path or an answer, and a control or bidi character in it must be shown, never acted on by the terminal.
 */
export function warningSink(stderr: TextSink): (message: string) => void {
  return (message: string) => {
    stderr.write(`${printable(message)}\n`);
  };
}

/** The context of one command. */
export interface CommandContext {
  options: CliOptions;
  io: CliIo;
  /** Colours on stdout: forced by FORCE_COLOR, else a terminal (TERM not dumb); never with --no-color or NO_COLOR alone. */
  style: Style;
  startEmulator: StartEmulator;
}

/** Builds the context; colour when FORCE_COLOR asks for it, else only when stdout is a terminal. */
export function commandContext(options: CliOptions, io: CliIo, startEmulator: StartEmulator): CommandContext {
  const color = !options.noColor && (options.forceColor || (io.stdout.isTTY === true && io.env.TERM !== 'dumb'));
  return { options, io, style: styleFor(color), startEmulator };
}

/** The Ops Manager connection settings from options and environment, or a usage error naming what is missing. */
export function connectionSettings(
  options: CliOptions,
  env: Record<string, string | undefined>,
  command: string,
): { baseUrl: string; publicKey: string; privateKey: string } {
  const missing: string[] = [];
  if (options.baseUrl === undefined) missing.push('--base-url (or OPSMAN_BASE_URL)');
  const publicKey = env.OPSMAN_PUBLIC_KEY ?? '';
  const privateKey = env.OPSMAN_PRIVATE_KEY ?? '';
  if (publicKey === '') missing.push('OPSMAN_PUBLIC_KEY');
  if (privateKey === '') missing.push('OPSMAN_PRIVATE_KEY');
  if (missing.length > 0) {
    throw new UsageError(`${command} talks to Ops Manager and needs ${missing.join(', ')}`, command);
  }
  for (const [name, value] of [
    ['OPSMAN_PUBLIC_KEY', publicKey],
    ['OPSMAN_PRIVATE_KEY', privateKey],
  ] as const) {
    const problem = credentialProblem(value);
    if (problem !== undefined) throw new UsageError(`${name} ${problem}`, command);
  }
  return { baseUrl: options.baseUrl as string, publicKey, privateKey };
}

/**
 * What is wrong with an API key from the environment, never quoting it. The client checks the same rule, but names
 * its own option (`invalid client options: privateKey ...`), not the variable to fix, and cannot tell a newline
 * read from a file (`OPSMAN_PRIVATE_KEY=$(cat key)` keeps none; `read -r` or a .env loader may) from any other
 * character.
 */
function credentialProblem(value: string): string | undefined {
  if (/\n$/.test(value)) return 'ends with a newline (read from a file?): set the key alone';
  if (value.trim() !== value) return 'has white space at its start or end: set the key alone';
  if (!/^[\x21-\x7e]+$/.test(value) || /["\\]/.test(value)) {
    return 'must be printable ASCII without spaces, quotes or backslashes (as Ops Manager issues keys)';
  }
  return undefined;
}

/**
 * Says where a missing directory was looked for and, when a directory beside it has a close name, which one was
 * probably meant. A relative path is read from the current directory, so the default `desired-state/` run from
 * elsewhere than the repository root, or a typo (`desired-stat`), each says what to change.
 */
async function missingDirectory(dir: string, flag: string): Promise<string> {
  const full = resolve(dir);
  const where = isAbsolute(dir) ? '' : ` (looked for ${full}: a relative path is read from the current directory)`;
  const siblings = await readdir(dirname(full), { withFileTypes: true }).then(
    (entries) => entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name),
    () => [],
  );
  const near = closest(basename(full), siblings);
  return `${flag} '${dir}' does not exist${where}${near === undefined ? '' : `; did you mean '${join(dirname(dir), near)}'?`}`;
}

/** Fails with a clear message when the desired-state directory is missing. */
export async function requireDirectory(dir: string, flag: string): Promise<void> {
  const info = await stat(dir).catch((error: unknown) => {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    // A link loop, a part of the path that is not a directory, no permission: said as what it is, not "missing".
    throw new CliError('CLI_NO_DIRECTORY', `${flag} '${dir}' cannot be read: ${describeFsCause(dir, error, 'read')}`);
  });
  if (info === null) throw new CliError('CLI_NO_DIRECTORY', await missingDirectory(dir, flag), EXIT.error);
  if (!info.isDirectory()) throw new CliError('CLI_NOT_A_DIRECTORY', `${flag} '${dir}' is not a directory`, EXIT.error);
}

/** One reconcile's wiring: the dependencies, the client (to close) and the archive recorder. */
export interface RunSession {
  deps: RunDependencies;
  client: ApiClient;
  archive: RecordingArchiveStore;
  /** The Public API root the run talks to (a saved plan is sealed to it). */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The Ops Manager client of a command, from its connection options and the environment's credentials (a usage error
 * naming what is missing): TLS options, --request-timeout, stall and retry notices on stderr, requests counted by `counter`.
 */
export async function openApiClient(
  ctx: CommandContext,
  command: string,
  counter: ApiCallCounter = new ApiCallCounter(),
): Promise<{ client: ApiClient; connection: ReturnType<typeof connectionSettings> }> {
  const { options, io } = ctx;
  const connection = connectionSettings(options, io.env, command);
  const requestTimeoutMs =
    options.requestTimeoutSeconds === undefined ? undefined : Math.round(options.requestTimeoutSeconds * 1000);
  const retries = new RetryNotices(io.stderr);
  const notices = new StallNotices(io.stderr, stallNoticeAfterMs(requestDeadlineMs({ requestTimeoutMs })));
  const client = await apiClient({
    ...connection,
    caFile: options.caFile,
    insecureSkipVerify: options.insecureSkipVerify,
    observer: {
      onRequest: (event) => counter.onRequest(event),
      onStall: (event) => notices.onStall(event),
      onRetryWait: (event) => retries.onRetryWait(event),
    },
    ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    warn: warningSink(io.stderr),
  });
  return { client, connection };
}

/**
 * A malformed OPSMAN_FINGERPRINT_KEY is a setting given wrong (exit 2, as a bad OPSMAN_BASE_URL is), said before any
 * file is touched; a bad key file in the state directory stays a state problem (exit 1).
 */
function checkFingerprintKeySetting(env: Record<string, string | undefined>, command: string): void {
  const value = env.OPSMAN_FINGERPRINT_KEY;
  if (value === undefined || value === '') return;
  try {
    parseFingerprintKey(value, 'OPSMAN_FINGERPRINT_KEY');
  } catch (error) {
    if (!(error instanceof FingerprintKeyError)) throw error;
    throw new UsageError(
      `${error.message}: set it to hex or base64 of at least 16 random bytes (openssl rand -hex 32), or unset it to use the key file of the state directory`,
      command,
    );
  }
}

/** Builds the real adapters for one run. */
export async function openSession(ctx: CommandContext, command: string): Promise<RunSession> {
  const { options, io } = ctx;
  // Missing credentials are a usage error before any file is touched (openApiClient checks again, harmlessly).
  connectionSettings(options, io.env, command);
  checkFingerprintKeySetting(io.env, command);
  const counter = new ApiCallCounter();
  const [source, secrets, stores] = await Promise.all([
    desiredSource(options.desired),
    secretResolver(options.secretsFile, io.env),
    localStores(options.stateDir, options.archiveDir, io.env),
  ]);
  const { client, connection } = await openApiClient(ctx, command, counter);
  const archive = new RecordingArchiveStore(stores.archive);
  const deps: RunDependencies = {
    source,
    api: client,
    secrets,
    state: stores.state,
    archive,
    clock: io.clock ?? SYSTEM_CLOCK,
    reporter: stderrReporter(io.stderr),
    fingerprintKey: stores.fingerprintKey,
    actorPublicKey: connection.publicKey,
    opsManagerUrl: connection.baseUrl,
    apiCalls: () => counter.snapshot(),
  };
  if (stores.desiredCache) deps.desiredCache = stores.desiredCache;
  return { deps, client, archive, baseUrl: connection.baseUrl, close: () => client.close() };
}
