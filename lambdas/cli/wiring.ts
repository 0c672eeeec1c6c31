/**
 * The composition of the CLI: builds the real adapters (API client, desired-state source, secret resolver, state and
 * archive stores, fingerprint key) from the options, and reaches the reconciler. The only file of the CLI that knows
 * where each adapter lives.
 */
import { dirname } from 'node:path';
import { FsArchiveStore } from '../adapters/local/archive-fs.ts';
import { desiredCacheDir, desiredCacheOff, FsDesiredStateCache } from '../adapters/local/desired-cache-fs.ts';
import { FsDesiredStateSource } from '../adapters/local/desired-source-fs.ts';
import { loadFingerprintKey } from '../adapters/local/fingerprint-key.ts';
import { describeFsCause } from '../adapters/local/fs-failure.ts';
import { EnvSecretResolver } from '../adapters/local/secrets-env.ts';
import { FileSecretResolver } from '../adapters/local/secrets-file.ts';
import { FsStateStore, writeFileAtomic } from '../adapters/local/state-fs.ts';
import { ensureWritableDirectory } from '../adapters/local/writable-dir.ts';
import { DESIRED_STATE_SCHEMA, formatIssues, loadDesiredState } from '../core/desired/index.ts';
import type { RunReport } from '../core/model.ts';
import type {
  ArchiveStore,
  DesiredStateCache,
  DesiredStateSource,
  RequestObserver,
  SecretResolver,
  StateStore,
} from '../core/ports.ts';
import { runReconcile } from '../core/run.ts';
import type { RunDependencies, RunRequest } from '../core/run-types.ts';
import { createOpsManagerClient, DEFAULT_RETRY_OPTIONS, type OpsManagerClient } from '../opsman/index.ts';
import { stallNoticeAfterMs } from './stall-notices.ts';

export type { LoadResult, ValidationIssue } from '../core/desired/index.ts';

/** The API client: the port plus close(). */
export type ApiClient = OpsManagerClient;

/** Connection settings of the client. */
export interface ConnectionOptions {
  baseUrl: string;
  publicKey: string;
  privateKey: string;
  caFile?: string;
  insecureSkipVerify?: boolean;
  observer?: RequestObserver;
  /** --request-timeout: the client's deadline per request (retries included); absent: the client's default. */
  requestTimeoutMs?: number;
  /** Where the client's warnings go (insecureSkipVerify). */
  warn?: (message: string) => void;
}

/** The deadline a request gets: --request-timeout, else the client's default (120 s). */
export function requestDeadlineMs(options: Pick<ConnectionOptions, 'requestTimeoutMs'>): number {
  return options.requestTimeoutMs ?? DEFAULT_RETRY_OPTIONS.deadlineMs;
}

/** The desired-state engine: loader, issue formatter, JSON Schema. */
export function desiredModule(): Promise<{
  loadDesiredState: typeof loadDesiredState;
  formatIssues: typeof formatIssues;
  DESIRED_STATE_SCHEMA: typeof DESIRED_STATE_SCHEMA;
}> {
  return Promise.resolve({ loadDesiredState, formatIssues, DESIRED_STATE_SCHEMA });
}

/** The desired-state directory as a source. */
export async function desiredSource(dir: string): Promise<DesiredStateSource> {
  return new FsDesiredStateSource(dir);
}

/** The secret resolver: the JSON file when given, else environment variables. */
export async function secretResolver(
  secretsFile: string | undefined,
  env: Record<string, string | undefined>,
): Promise<SecretResolver> {
  if (secretsFile === undefined) return new EnvSecretResolver(env);
  const resolver = new FileSecretResolver(secretsFile);
  await resolver.check();
  return resolver;
}

/** How the client's messages name its settings: the CLI's flags, never the option names of the code. */
export const CLI_SETTING_NAMES = {
  baseUrl: '--base-url (or OPSMAN_BASE_URL)',
  caFile: '--ca-file',
  insecureSkipVerify: '--insecure-skip-verify',
  requestDeadline: '--request-timeout',
  apiKey: 'OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY',
} as const;

/**
 * The Ops Manager client. Its messages name the CLI's flags (--request-timeout for the deadline), and it reports a
 * request to `observer.onStall` after stallNoticeAfterMs of its deadline.
 */
export async function apiClient(options: ConnectionOptions): Promise<ApiClient> {
  const { requestTimeoutMs: _, ...connection } = options;
  const deadlineMs = requestDeadlineMs(options);
  return createOpsManagerClient({
    ...connection,
    userAgent: 'opsman-gitops-cli',
    retry: { deadlineMs },
    stallAfterMs: stallNoticeAfterMs(deadlineMs),
    settingNames: CLI_SETTING_NAMES,
  });
}

/**
 * State store, archive store, fingerprint key and desired-state cache (`<stateDir>/cache/desired/`) of a state
 * directory. `OPSMAN_DESIRED_CACHE=off` leaves the cache out: every run parses the desired state.
 */
export async function localStores(
  stateDir: string,
  archiveDir: string,
  env: Record<string, string | undefined>,
): Promise<{ state: StateStore; archive: ArchiveStore; fingerprintKey: Uint8Array; desiredCache?: DesiredStateCache }> {
  return {
    state: new FsStateStore(stateDir),
    archive: new FsArchiveStore(archiveDir),
    fingerprintKey: await loadFingerprintKey(stateDir, env),
    ...(desiredCacheOff(env) ? {} : { desiredCache: new FsDesiredStateCache(desiredCacheDir(stateDir)) }),
  };
}

/**
 * Writes `text` to `path` all at once or not at all (temp file, fsync, rename), readable by its owner only (0600: a
 * saved plan names every project, alert and target of the installation). Rejects with
 * an Error whose message is the cause in words about `path` (`/srv/plans does not exist (ENOENT)`): Node's own names
 * the temp file, which the user never heard of.
 */
export async function saveFileAtomically(path: string, text: string): Promise<void> {
  try {
    await writeFileAtomic(path, text, dirname(path), 0o600);
  } catch (error) {
    throw new Error(describeFsCause(path, error), { cause: error });
  }
}

/**
 * Proves a file can be written in the directory (created for the check when missing, and removed again); rejects with
 * an error naming `what`, the path and the cause (permission denied, not a directory, no space, read-only).
 */
export function writableDirectory(dir: string, what: string): Promise<void> {
  return ensureWritableDirectory(dir, what);
}

/** The lock of a state directory, for `unlock`. */
export function lockOf(stateDir: string): Pick<FsStateStore, 'forceReleaseLease'> {
  return new FsStateStore(stateDir);
}

/** The reconciler's one entry point. */
export function reconcile(request: RunRequest, deps: RunDependencies): Promise<RunReport> {
  return runReconcile(request, deps);
}
