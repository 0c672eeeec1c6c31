/**
 * Times planning alone (read live -> normalise -> diff -> plan) with the live reads served from memory, so the
 * reconciler's own CPU shows without the network: `npx tsx --expose-gc bench/plan-cpu.ts [--projects N] [--alerts M]
 * [--runs R] [--dir DIR]`.
 *
 * The first run builds a fixture in DIR (default /tmp/plan-cpu-<N>x<M>): the world's desired state and secrets file,
 * an in-process emulator seeded with the world, one real `apply`, then the live reads and the state it left. Later
 * runs reuse it. Each timed run gets freshly parsed live objects (as a client returns them; parsing is not timed).
 * Two scenarios: `noop` (live equals the apply) and `drift` (edits, deletions, disables, unowned copies, missing
 * state records), each printed with a digest of the whole plan so a change to planning can be checked for identical
 * output as well as timed. Under tsx every closure pays esbuild's `__name` wrapper: for figures comparable with the
 * benchmark's compiled child, bundle this file with esbuild and run the bundle (docs/planning-performance.md).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { startEmulator } from '../emulator/index.ts';
import { FileSecretResolver } from '../lambdas/adapters/local/secrets-file.ts';
import { loadDesiredState } from '../lambdas/core/desired/index.ts';
import type { DesiredState } from '../lambdas/core/model.ts';
import { makePlan } from '../lambdas/core/plan.ts';
import type { OpsManagerApi, ReconcileState } from '../lambdas/core/ports.ts';
import { CachingSecretResolver } from '../lambdas/core/resolve-secrets.ts';
import { runReconcile } from '../lambdas/core/run.ts';
import type { AlertConfig } from '../lambdas/opsman/types.ts';
import { renderDesiredState, renderSecretsFile } from './desired.ts';
import { buildRunDependencies, FIXED_FINGERPRINT_KEY, SILENT_REPORTER } from './run-deps.ts';
import { renderSeed } from './seed.ts';
import { buildWorld, TOOL_KEY } from './world.ts';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`);
  return value;
}

/** What the fixture keeps of Ops Manager after the apply: raw JSON texts, parsed afresh per run. */
interface LiveRecord {
  alertConfigs: Record<string, string>;
  projectServerTypes: Record<string, string>;
  rotations: Record<string, string>;
  orgServerTypes: Record<string, string>;
}

async function exists(file: string): Promise<boolean> {
  return readFile(file).then(
    () => true,
    () => false,
  );
}

async function buildFixture(dir: string, projects: number, alerts: number): Promise<void> {
  const world = buildWorld({ projects, alerts });
  await rm(dir, { recursive: true, force: true });
  for (const file of renderDesiredState(world)) {
    const full = path.join(dir, 'desired', file.path);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, file.text);
  }
  await writeFile(path.join(dir, 'secrets.json'), renderSecretsFile(world));
  const emulator = await startEmulator({ port: 0, seed: renderSeed(world) });
  const paths = {
    desiredDir: path.join(dir, 'desired'),
    secretsFile: path.join(dir, 'secrets.json'),
    stateDir: path.join(dir, 'state'),
    archiveDir: path.join(dir, 'archive'),
  };
  const built = buildRunDependencies(paths, {
    baseUrl: emulator.url,
    publicKey: TOOL_KEY.publicKey,
    privateKey: TOOL_KEY.privateKey,
    maxConcurrency: 8,
  });
  try {
    const report = await runReconcile({ command: 'apply', runId: 'plan-cpu-apply', owner: 'plan-cpu' }, built.deps);
    if (report.failures.length > 0) throw new Error(`fixture apply failed: ${report.failures[0]?.message}`);
    const live: LiveRecord = { alertConfigs: {}, projectServerTypes: {}, rotations: {}, orgServerTypes: {} };
    const api = built.deps.api;
    for (const p of world.projects) {
      live.alertConfigs[p.id] = JSON.stringify(await api.listAlertConfigs(p.id));
      live.projectServerTypes[p.id] = JSON.stringify(await api.getProjectDefaultServerType(p.id));
      live.rotations[p.id] = JSON.stringify(await api.getAuditLogRotateConfig(p.id));
    }
    for (const o of world.orgs) live.orgServerTypes[o.id] = JSON.stringify(await api.getOrgDefaultServerType(o.id));
    const { state } = await built.deps.state.read();
    await writeFile(path.join(dir, 'live.json'), JSON.stringify(live));
    await writeFile(path.join(dir, 'state.json'), JSON.stringify(state));
  } finally {
    await built.close();
    await emulator.close();
  }
}

/** Deterministic edits of the live side and the state: every plan action that a drift run meets. */
function drift(live: Map<string, AlertConfig[]>, state: ReconcileState): void {
  let i = 0;
  for (const [groupId, configs] of live) {
    const n = i++;
    if (n % 5 !== 0) continue;
    const owned = state.projects[groupId]?.alertConfigs ?? {};
    const keys = Object.keys(owned).sort();
    const byId = (key: string | undefined) => configs.find((c) => c.id === owned[key ?? '']?.id);
    const edited = byId(keys[0]);
    if (edited?.metricThreshold) edited.metricThreshold.threshold = Number(edited.metricThreshold.threshold) + 1;
    else if (edited?.threshold) edited.threshold.threshold = Number(edited.threshold.threshold) + 1;
    const disabled = byId(keys[1]);
    if (disabled) disabled.enabled = !disabled.enabled;
    const removed = byId(keys[2]);
    if (removed) configs.splice(configs.indexOf(removed), 1);
    const notified = byId(keys[3]);
    if (notified && notified.notifications.length > 0) {
      const first = notified.notifications[0] as unknown as Record<string, unknown>;
      first.delayMin = Number(first.delayMin ?? 0) + 7;
      notified.notifications.push({ typeName: 'EMAIL', emailAddress: 'extra@bench.example', delayMin: 1 } as never);
    }
    const copied = byId(keys[4]);
    const forgotten = keys[4];
    if (copied && forgotten !== undefined) {
      // The state forgets the key: the live config is unowned and equal, so it is adopted.
      delete owned[forgotten];
    }
    const secretKey = keys[5];
    const record = secretKey === undefined ? undefined : owned[secretKey];
    if (record?.secretFingerprints) {
      // As if the value changed since the write: the whole request's fingerprint with it (else the request would be
      // the one last sent, which is in sync whatever the per-path fingerprints say).
      for (const p of Object.keys(record.secretFingerprints)) record.secretFingerprints[p] = 'stale';
      record.fingerprint = 'stale';
    }
    const gone = keys[6];
    if (gone !== undefined && owned[gone]) owned[`${gone}-left-git`] = { ...owned[gone] };
  }
}

function fakeApi(live: Map<string, AlertConfig[]>, rec: LiveRecord): OpsManagerApi {
  const parse = <T>(text: string | undefined): T => JSON.parse(text ?? 'null') as T;
  const api: Partial<OpsManagerApi> = {
    listAlertConfigs: async (groupId) => live.get(groupId) ?? [],
    getProjectDefaultServerType: async (groupId) => parse(rec.projectServerTypes[groupId]),
    getAuditLogRotateConfig: async (groupId) => parse(rec.rotations[groupId]),
    getOrgDefaultServerType: async (orgId) => parse(rec.orgServerTypes[orgId]),
    getTeam: async (orgId, teamId) => ({ id: teamId, name: 'team', orgId }) as never,
    listProjectEvents: async () => [],
    listOrgEvents: async () => [],
  };
  return api as OpsManagerApi;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function timeRun(
  desired: DesiredState,
  rec: LiveRecord,
  stateText: string,
  scenario: 'noop' | 'drift',
  secretsFile: string,
): Promise<{ wallMs: number; cpuMs: number; gcMs: number; digest: string; actions: Record<string, number> }> {
  const live = new Map<string, AlertConfig[]>();
  for (const [id, text] of Object.entries(rec.alertConfigs)) live.set(id, JSON.parse(text) as AlertConfig[]);
  const state = JSON.parse(stateText) as ReconcileState;
  if (scenario === 'drift') drift(live, state);
  const api = fakeApi(live, rec);
  const secrets = new CachingSecretResolver(new FileSecretResolver(secretsFile));
  gc?.();
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const cpu = process.cpuUsage();
  const started = performance.now();
  const plan = await makePlan(
    { runId: 'plan-cpu', createdAt: '2026-01-01T00:00:00.000Z', command: 'plan', desired, state, stateCorrupt: false },
    { api, secrets, fingerprintKey: FIXED_FINGERPRINT_KEY, reporter: SILENT_REPORTER },
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await new Promise((resolve) => setImmediate(resolve));
  for (const entry of observer.takeRecords()) gcMs += entry.duration;
  observer.disconnect();
  const actions: Record<string, number> = {};
  for (const c of plan.changes) actions[c.action] = (actions[c.action] ?? 0) + 1;
  const digest = createHash('sha256').update(JSON.stringify(plan)).digest('hex').slice(0, 16);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, gcMs, digest, actions };
}

async function main(): Promise<void> {
  const projects = flag('projects', 200);
  const alerts = flag('alerts', 20);
  const runs = flag('runs', 5);
  const i = process.argv.indexOf('--dir');
  const dir = i >= 0 ? String(process.argv[i + 1]) : `/tmp/plan-cpu-${projects}x${alerts}`;
  if (!(await exists(path.join(dir, 'state.json')))) {
    console.log(`building the fixture in ${dir} (one real apply against an in-process emulator)...`);
    await buildFixture(dir, projects, alerts);
  }
  const loaded = await loadDesiredState(
    new (await import('../lambdas/adapters/local/desired-source-fs.ts')).FsDesiredStateSource(
      path.join(dir, 'desired'),
    ),
  );
  if (!loaded.ok) throw new Error(`fixture desired state invalid: ${loaded.issues[0]?.message}`);
  const rec = JSON.parse(await readFile(path.join(dir, 'live.json'), 'utf8')) as LiveRecord;
  const stateText = await readFile(path.join(dir, 'state.json'), 'utf8');
  const configs = loaded.state.projects.reduce((n, p) => n + p.alertConfigs.length, 0);
  console.log(`${projects} projects x ${alerts} alert configs (${configs} desired)`);
  for (const scenario of ['noop', 'drift'] as const) {
    const rows: { wallMs: number; cpuMs: number; gcMs: number }[] = [];
    let last: Awaited<ReturnType<typeof timeRun>> | undefined;
    for (let run = 0; run < runs; run++) {
      last = await timeRun(loaded.state, rec, stateText, scenario, path.join(dir, 'secrets.json'));
      rows.push(last);
    }
    const stat = (pick: (r: (typeof rows)[number]) => number) => {
      const v = rows.map(pick).sort((a, b) => a - b);
      return { min: v[0] ?? 0, median: v[Math.floor(v.length / 2)] ?? 0 };
    };
    const wall = stat((r) => r.wallMs);
    const cpu = stat((r) => r.cpuMs);
    const us = (ms: number) => ((ms * 1000) / configs).toFixed(1);
    console.log(
      `${scenario}: ${runs} runs, wall ms min ${wall.min.toFixed(0)} median ${wall.median.toFixed(0)}, ` +
        `CPU ms min ${cpu.min.toFixed(0)} median ${cpu.median.toFixed(0)}, GC ms median ${stat((r) => r.gcMs).median.toFixed(0)}; ` +
        `us/config (wall) min ${us(wall.min)} median ${us(wall.median)}; ms/project median ${(wall.median / projects).toFixed(3)}\n` +
        `  first (cold) run: wall ms ${rows[0]?.wallMs.toFixed(0)}, CPU ms ${rows[0]?.cpuMs.toFixed(0)} (the benchmark's child plans once, cold)\n` +
        `  plan digest ${last?.digest} ${JSON.stringify(last?.actions)}`,
    );
  }
}

await main();
