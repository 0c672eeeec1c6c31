/**
 * Integration harness of the reconciler: the emulator on 127.0.0.1 port 0 (admin API on), the real client, the
 * example desired state copied into a temp dir, its local secrets file, FsStateStore and FsArchiveStore in temp
 * dirs. `close()` removes everything.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/index.ts';
import { FsArchiveStore } from '../../lambdas/adapters/local/archive-fs.ts';
import { FsDesiredStateSource } from '../../lambdas/adapters/local/desired-source-fs.ts';
import { FileSecretResolver } from '../../lambdas/adapters/local/secrets-file.ts';
import { FsStateStore } from '../../lambdas/adapters/local/state-fs.ts';
import type { RunReport } from '../../lambdas/core/model.ts';
import type { Clock, ReconcileState, Reporter } from '../../lambdas/core/ports.ts';
import { runReconcile } from '../../lambdas/core/run.ts';
import type { RunDependencies, RunRequest } from '../../lambdas/core/run-types.ts';
import { stateDocumentProblem } from '../../lambdas/core/state-check.ts';
import { createOpsManagerClient, type OpsManagerClient } from '../../lambdas/opsman/index.ts';

/** The API keys of the example seed. */
export const KEYS = {
  gitopsbt: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
  jdoekey1: '0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f',
} as const;

/** Project ids of the example world. */
export const PROJECTS = {
  paymentsProd: '5e2211c17a3e5a48f5497de3',
  paymentsStaging: '5e2211c17a3e5a48f5497de4',
  searchProd: '5e2211c17a3e5a48f5497de5',
  analyticsDev: '5e2211c17a3e5a48f5497de6',
  ledgerProd: '5e2211c17a3e5a48f5497de7',
} as const;

const realClock: Clock = { now: () => new Date(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
const quiet: Reporter = { progress() {}, metric() {} };

/** One emulator and one working directory for a test. */
export class EmulatorWorld {
  private clients: OpsManagerClient[] = [];
  private runs = 0;
  calls = { total: 0, byEndpoint: {} as Record<string, number> };

  private constructor(
    readonly url: string,
    readonly origin: string,
    readonly dir: string,
    private readonly closeEmulator: () => Promise<void>,
  ) {}

  /** Starts the emulator on the example seed and copies the example desired state. */
  static async start(): Promise<EmulatorWorld> {
    const dir = await mkdtemp(join(tmpdir(), 'reconcile-it-'));
    await cp(join(import.meta.dirname, '../../desired-state'), join(dir, 'desired'), { recursive: true });
    const emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true });
    return new EmulatorWorld(emulator.url, emulator.origin, dir, () => emulator.close());
  }

  get desiredDir(): string {
    return join(this.dir, 'desired');
  }

  get secretsFile(): string {
    return join(this.dir, 'desired', 'local-secrets.json');
  }

  /** A client acting as one of the seed's keys, counting calls into `calls`. */
  client(publicKey: keyof typeof KEYS = 'gitopsbt'): OpsManagerClient {
    const c = createOpsManagerClient({
      baseUrl: this.url,
      publicKey,
      privateKey: KEYS[publicKey],
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100 },
      observer: {
        onRequest: (e) => {
          const key = `${e.method} ${e.pathTemplate}`;
          this.calls.total++;
          this.calls.byEndpoint[key] = (this.calls.byEndpoint[key] ?? 0) + 1;
        },
      },
    });
    this.clients.push(c);
    return c;
  }

  /** Dependencies of a run (state in `<dir>/state`, archive in `<dir>/archive`). */
  deps(api = this.client()): RunDependencies {
    return {
      source: new FsDesiredStateSource(this.desiredDir),
      api,
      secrets: new FileSecretResolver(this.secretsFile),
      state: new FsStateStore(join(this.dir, 'state')),
      archive: new FsArchiveStore(join(this.dir, 'archive')),
      clock: realClock,
      reporter: quiet,
      fingerprintKey: new Uint8Array(32).fill(3),
      actorPublicKey: 'gitopsbt',
      apiCalls: () => ({ total: this.calls.total, byEndpoint: { ...this.calls.byEndpoint } }),
    };
  }

  /** Runs one command. */
  async run(command: RunRequest['command'], extra: Partial<RunRequest> = {}, deps = this.deps()): Promise<RunReport> {
    this.runs++;
    return runReconcile({ command, runId: `it-${this.runs}-${Date.now()}`, owner: 'test', ...extra }, deps);
  }

  /** Calls the emulator's admin API. */
  async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(`${this.origin}/__emulator/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
    return text === '' ? {} : JSON.parse(text);
  }

  /** Writes made (non-GET requests with 2xx) since the request log was last cleared. */
  async writes(): Promise<{ method: string; route: string; publicKey?: string }[]> {
    const log = (await this.admin('GET', 'requests')) as {
      entries: { method: string; route: string; status: number; publicKey?: string }[];
    };
    return log.entries.filter((e) => e.method !== 'GET' && e.status >= 200 && e.status < 300);
  }

  /**
   * The state file the runs left, checked as the next run reads it (its shape check): what a run stored round-trips.
   * Throws naming the problem when the check refuses it.
   */
  async storedState(): Promise<ReconcileState> {
    const parsed: unknown = JSON.parse(await readFile(join(this.dir, 'state', 'state.json'), 'utf8'));
    const problem = stateDocumentProblem(parsed);
    if (problem !== undefined) throw new Error(`state.json would be refused by the next run: ${problem}`);
    return parsed as ReconcileState;
  }

  /** Rewrites a file of the desired state copy. */
  async editDesired(path: string, edit: (text: string) => string): Promise<void> {
    const file = join(this.desiredDir, path);
    await writeFile(file, edit(await readFile(file, 'utf8')));
  }

  /** Rewrites the secrets file. */
  async editSecrets(edit: (secrets: Record<string, Record<string, string>>) => void): Promise<void> {
    const secrets = JSON.parse(await readFile(this.secretsFile, 'utf8')) as Record<string, Record<string, string>>;
    edit(secrets);
    await writeFile(this.secretsFile, JSON.stringify(secrets));
  }

  /** Closes clients and the emulator, removes the temp dir. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
    await this.closeEmulator();
    await rm(this.dir, { recursive: true, force: true });
  }
}
