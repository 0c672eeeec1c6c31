/**
 * In-memory adapters and desired-state builders for the reconciler's tests: a StateStore with versions and leases,
 * an ArchiveStore, a DesiredStateSource of YAML texts, a secret map, a controllable clock, and `runWith` to call
 * runReconcile against a FakeWorld.
 */
import { createHash, randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { LeaseHeldError, LeaseLostError, StateConflictError, StateCorruptError } from '../../lambdas/core/errors.ts';
import type { DesiredAlertConfig, DesiredProject, RunReport } from '../../lambdas/core/model.ts';
import type {
  ArchiveStore,
  Clock,
  DesiredFileRef,
  DesiredStateSource,
  Lease,
  ReconcileState,
  Reporter,
  SecretResolver,
  StateStore,
} from '../../lambdas/core/ports.ts';
import { runReconcile } from '../../lambdas/core/run.ts';
import type { RunDependencies, RunRequest } from '../../lambdas/core/run-types.ts';
import type { FakeWorld } from './fake-opsman-api.ts';

/** A StateStore in memory with the same semantics as the real ones (versions, O_EXCL-like lease). */
export class MemoryStateStore implements StateStore {
  text: string | null = null;
  lease: Lease | null = null;
  writes = 0;

  constructor(readonly clock: Clock) {}

  private version(): string | null {
    return this.text === null ? null : createHash('sha256').update(this.text).digest('hex');
  }

  async read(): Promise<{ state: ReconcileState | null; version: string | null }> {
    if (this.text === null) return { state: null, version: null };
    try {
      const state = JSON.parse(this.text) as ReconcileState;
      if (state.formatVersion !== 1) throw new Error('bad format');
      return { state, version: this.version() };
    } catch (error) {
      throw new StateCorruptError('state is corrupt', this.version(), { cause: error });
    }
  }

  async write(state: ReconcileState, expectedVersion: string | null): Promise<string> {
    if (this.version() !== expectedVersion) throw new StateConflictError(expectedVersion, this.version());
    this.text = JSON.stringify(state);
    this.writes++;
    return this.version() as string;
  }

  get state(): ReconcileState | null {
    return this.text === null ? null : (JSON.parse(this.text) as ReconcileState);
  }

  async acquireLease(request: { owner: string; runId: string; ttlMs: number }): Promise<Lease> {
    const now = this.clock.now().getTime();
    if (this.lease !== null && Date.parse(this.lease.expiresAt) > now) {
      throw new LeaseHeldError({ owner: this.lease.owner, runId: this.lease.runId, expiresAt: this.lease.expiresAt });
    }
    this.lease = { ...request, expiresAt: new Date(now + request.ttlMs).toISOString(), token: randomUUID() };
    return { ...this.lease };
  }

  async renewLease(lease: Lease, ttlMs: number): Promise<Lease> {
    if (this.lease?.token !== lease.token) throw new LeaseLostError('lost');
    this.lease = { ...this.lease, expiresAt: new Date(this.clock.now().getTime() + ttlMs).toISOString() };
    return { ...this.lease };
  }

  async releaseLease(lease: Lease): Promise<void> {
    if (this.lease?.token === lease.token) this.lease = null;
  }
}

/** An ArchiveStore in memory. */
export class MemoryArchiveStore implements ArchiveStore {
  objects = new Map<string, string>();

  describe(): string {
    return 'memory:';
  }

  async put(key: string, body: string | Uint8Array, options?: { ifAbsent?: boolean }) {
    if (options?.ifAbsent && this.objects.has(key)) return { key, created: false, location: `memory:${key}` };
    this.objects.set(key, typeof body === 'string' ? body : new TextDecoder().decode(body));
    return { key, created: true, location: `memory:${key}` };
  }

  async get(key: string): Promise<Uint8Array | null> {
    const v = this.objects.get(key);
    return v === undefined ? null : new TextEncoder().encode(v);
  }
}

/** A desired-state source of in-memory files. */
export class MemorySource implements DesiredStateSource {
  constructor(public files: Map<string, string> = new Map()) {}

  describe(): string {
    return 'memory:desired/';
  }

  async list(): Promise<DesiredFileRef[]> {
    return [...this.files.keys()]
      .filter((p) => p.endsWith('.yaml') || p.endsWith('.yml'))
      .sort()
      .map((path) => ({ path, size: Buffer.byteLength(this.files.get(path) ?? '') }));
  }

  async read(path: string): Promise<{ bytes: Uint8Array }> {
    const text = this.files.get(path);
    // Absent as the port says it (NOT_FOUND), as the directory and S3 sources do.
    if (text === undefined) throw Object.assign(new Error(`no file ${path}`), { code: 'NOT_FOUND' });
    return { bytes: new TextEncoder().encode(text) };
  }

  async readIfPresent(path: string): Promise<{ bytes: Uint8Array } | undefined> {
    return this.files.has(path) ? this.read(path) : undefined;
  }
}

/** Secrets from a map; unknown refs fail like the real resolvers (without a value in the message). */
export class MapSecrets implements SecretResolver {
  constructor(public values: Record<string, string> = {}) {}

  async resolve(ref: string): Promise<string> {
    const v = this.values[ref];
    if (v === undefined) throw new Error(`secret ${ref} not found`);
    return v;
  }
}

/** A clock that moves forward by itself (1 ms per reading) and on sleep. */
export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-03-01T10:00:00Z')) {}

  now(): Date {
    this.ms += 1;
    return new Date(this.ms);
  }

  async sleep(ms: number): Promise<void> {
    this.ms += ms;
  }
}

/** A reporter that keeps its messages. */
export class ListReporter implements Reporter {
  messages: string[] = [];
  progress(message: string): void {
    this.messages.push(message);
  }
  metric(): void {}
}

/** A project document for the YAML source. */
export interface ProjectDoc {
  name: string;
  projectId: string;
  orgId?: string;
  mode?: string;
  prune?: boolean;
  protect?: string[];
  /** spec.release: keys to stop managing without deleting. */
  release?: string[];
  defaultServerType?: string;
  auditLogRotation?: Record<string, unknown>;
  alertConfigs: Record<string, unknown>[];
}

/** YAML text of one Project document. */
export function projectYaml(p: ProjectDoc): string {
  const metadata: Record<string, unknown> = { name: p.name, projectId: p.projectId };
  if (p.orgId !== undefined) metadata.orgId = p.orgId;
  const spec: Record<string, unknown> = { alertConfigs: p.alertConfigs };
  for (const k of ['mode', 'prune', 'protect', 'release', 'defaultServerType', 'auditLogRotation'] as const) {
    if (p[k] !== undefined) spec[k] = p[k];
  }
  return stringify({ apiVersion: 'opsman-gitops/v1', kind: 'Project', metadata, spec });
}

/** YAML text of a Settings document. */
export function settingsYaml(spec: Record<string, unknown>): string {
  return stringify({ apiVersion: 'opsman-gitops/v1', kind: 'Settings', metadata: { name: 'test' }, spec });
}

/** A DesiredProject value (for calling the pure planners directly). */
export function desiredProject(
  projectId: string,
  alertConfigs: Partial<DesiredAlertConfig>[],
  extra: Partial<DesiredProject> = {},
): DesiredProject {
  return {
    name: `p-${projectId.slice(-4)}`,
    projectId,
    alertConfigs: alertConfigs.map((a, i) => ({
      key: a.key ?? `k${i}`,
      eventTypeName: a.eventTypeName ?? 'HOST_DOWN',
      enabled: a.enabled ?? true,
      matchers: a.matchers ?? [],
      notifications: a.notifications ?? [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0 }],
      source: { file: 'x.yaml', line: 1, column: 1 },
      ...(a.metricThreshold ? { metricThreshold: a.metricThreshold } : {}),
      ...(a.threshold ? { threshold: a.threshold } : {}),
    })),
    prune: false,
    protect: [],
    release: [],
    source: { file: 'x.yaml', line: 1, column: 1 },
    ...extra,
  };
}

/** Everything a runReconcile test needs, wired to one FakeWorld. */
export class ReconcileHarness {
  readonly clock = new TestClock();
  readonly state = new MemoryStateStore(this.clock);
  readonly archive = new MemoryArchiveStore();
  readonly source = new MemorySource();
  readonly secrets = new MapSecrets();
  readonly reporter = new ListReporter();
  readonly key = new Uint8Array(32).fill(7);
  private runs = 0;

  constructor(readonly world: FakeWorld) {
    world.timeSource = () => this.clock.now();
  }

  /** Sets the desired-state files (path -> YAML). */
  setFiles(files: Record<string, string>): void {
    this.source.files = new Map(Object.entries(files));
  }

  /** The Ops Manager base URL the runs say they are against (RunDependencies.opsManagerUrl); unset: none. */
  opsManagerUrl: string | undefined;

  deps(actor = 'gitopsbt'): RunDependencies {
    return {
      ...(this.opsManagerUrl === undefined ? {} : { opsManagerUrl: this.opsManagerUrl }),
      source: this.source,
      api: this.world.as(actor),
      // As the CLI and the functions do: the run knows its own key (attribution, late creates' audit).
      actorPublicKey: actor,
      secrets: this.secrets,
      state: this.state,
      archive: this.archive,
      clock: this.clock,
      reporter: this.reporter,
      fingerprintKey: this.key,
      apiCalls: () => this.world.apiCalls(),
    };
  }

  /** Runs one command. */
  async run(command: RunRequest['command'], extra: Partial<RunRequest> = {}): Promise<RunReport> {
    this.runs++;
    return runReconcile({ command, runId: `run-${this.runs}`, owner: 'test', ...extra }, this.deps());
  }
}
