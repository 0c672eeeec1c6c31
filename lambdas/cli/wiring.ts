/**
 * The composition of the CLI: builds the real adapters (API client, desired-state source, secret resolver, state and
 * archive stores, fingerprint key) from the options, and reaches the reconciler. The only file of the CLI that knows
 * where each adapter lives.
 *
 * Until every module lands, the ones not yet present are loaded dynamically through the contract shapes below, and a
 * missing one is a clear CliError rather than a compile error.
 */
import { FsDesiredStateSource } from '../adapters/local/desired-source-fs.ts';
import { EnvSecretResolver } from '../adapters/local/secrets-env.ts';
import { FileSecretResolver } from '../adapters/local/secrets-file.ts';
import { DESIRED_STATE_SCHEMA, formatIssues, loadDesiredState } from '../core/desired/index.ts';
import type { RunReport } from '../core/model.ts';
import type { ArchiveStore, DesiredStateSource, RequestObserver, SecretResolver, StateStore } from '../core/ports.ts';
import type { RunDependencies, RunRequest } from '../core/run-types.ts';
import { createOpsManagerClient, type OpsManagerClient } from '../opsman/index.ts';
import { CliError, EXIT } from './errors.ts';

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
  /** Where the client's warnings go (insecureSkipVerify). */
  warn?: (message: string) => void;
}

async function load<T>(relative: string, what: string): Promise<T> {
  try {
    return (await import(new URL(relative, import.meta.url).href)) as T;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_LOAD_URL') {
      throw new CliError('CLI_NOT_AVAILABLE', `${what} is not available in this build yet (${relative})`, EXIT.error, {
        cause: error,
      });
    }
    throw error;
  }
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
  return secretsFile !== undefined ? new FileSecretResolver(secretsFile) : new EnvSecretResolver(env);
}

/** The Ops Manager client. */
export async function apiClient(options: ConnectionOptions): Promise<ApiClient> {
  return createOpsManagerClient({ ...options, userAgent: 'opsman-gitops-cli' });
}

/** State store, archive store and fingerprint key of a state directory. */
export async function localStores(
  stateDir: string,
  archiveDir: string,
  env: Record<string, string | undefined>,
): Promise<{ state: StateStore; archive: ArchiveStore; fingerprintKey: Uint8Array }> {
  const [stateMod, archiveMod, keyMod] = await Promise.all([
    load<{ FsStateStore: new (dir: string) => StateStore }>('../adapters/local/state-fs.ts', 'the state store'),
    load<{ FsArchiveStore: new (dir: string) => ArchiveStore }>('../adapters/local/archive-fs.ts', 'the archive store'),
    load<{ loadFingerprintKey(dir: string, env: Record<string, string | undefined>): Promise<Uint8Array> }>(
      '../adapters/local/fingerprint-key.ts',
      'the fingerprint key',
    ),
  ]);
  return {
    state: new stateMod.FsStateStore(stateDir),
    archive: new archiveMod.FsArchiveStore(archiveDir),
    fingerprintKey: await keyMod.loadFingerprintKey(stateDir, env),
  };
}

/** The reconciler's one entry point. */
export async function reconcile(request: RunRequest, deps: RunDependencies): Promise<RunReport> {
  const mod = await load<{ runReconcile(r: RunRequest, d: RunDependencies): Promise<RunReport> }>(
    '../core/run.ts',
    'the reconciler',
  );
  return mod.runReconcile(request, deps);
}

/** True once the reconciler module exists (the demo degrades to emulator + validate before that). */
export async function reconcilerAvailable(): Promise<boolean> {
  try {
    await load('../core/run.ts', 'the reconciler');
    return true;
  } catch (error) {
    if (error instanceof CliError && error.code === 'CLI_NOT_AVAILABLE') return false;
    throw error;
  }
}
