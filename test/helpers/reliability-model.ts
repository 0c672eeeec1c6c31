/**
 * The model-based reliability test's world: one project whose desired alert configs are drawn from a fixed pool of the
 * bench catalogue (each in one of three variants, under a key that renames change; a key may move to `spec.release` and
 * back), a secrets file whose values steps bump, a human who edits, deletes and creates configs through the API with
 * another key (and fights the tool over one config's `enabled`, or tunes a member a config may ignore), `ignoreFields`
 * and a deny change window in git that steps turn on and off, and an emulator with a data
 * file that a step can restart. `Step` is one generated action; `ModelWorld.edit` performs those that are not runs, and
 * the test checks the invariants after each (test/reliability/model-interleaving.test.ts).
 */
import { cp, mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { type AlertSpec, alertSpecsFor, resolveSpecBody, type SpecBody } from '../../bench/alert-catalogue.ts';
import { writeWorld } from '../../bench/case.ts';
import { renderDesiredState } from '../../bench/desired.ts';
import { EmulatorAdmin, type FaultSpec } from '../../bench/emulator-admin.ts';
import type { RunPaths } from '../../bench/run-deps.ts';
import { renderSeed } from '../../bench/seed.ts';
import { buildWorld, DRIFT_KEY, type World } from '../../bench/world.ts';
import { type RunningEmulator, startEmulator } from '../../emulator/index.ts';
import { reportExitCode } from '../../lambdas/cli/outcome.ts';
import { createOpsManagerClient } from '../../lambdas/opsman/client.ts';
import type { AlertConfig, AlertConfigRequest } from '../../lambdas/opsman/types.ts';
import { liveAsRequest } from './live-as-request.ts';
import { FAST_RETRY, type RunOutcome, readLive, runOnce } from './reliability-harness.ts';
import { signature } from './reliability-inventory.ts';
import {
  IGNORABLE,
  ignorableOn,
  type Member,
  managedSignature,
  memberValue,
  tunedValue,
  type WindowState,
  windowLines,
} from './reliability-model-ignore.ts';

/** The world every case starts from: one project; the pool is its first POOL_SIZE catalogue alerts. */
const BASE = buildWorld({ projects: 1, alerts: 1 });
const PROJECT = BASE.projects[0] as World['projects'][number];
const TEAM = BASE.orgs.find((o) => o.id === PROJECT.orgId)?.teamId ?? '';
/** How many catalogue alerts the desired state may use. */
export const POOL_SIZE = 6;
const POOL: AlertSpec[] = alertSpecsFor({ projectIndex: 0, projectName: PROJECT.name, count: 8, teamId: TEAM })
  .slice(0, POOL_SIZE)
  .map((a) => ({ ...a, template: false }));

/** Client options of every run: header timeout short enough for a latency fault to pass it, Retry-After capped low. */
export const MODEL_CLIENT = {
  retry: { ...FAST_RETRY, maxRetryAfterMs: 50, deadlineMs: 8_000 },
  timeouts: { connectMs: 1_000, headersMs: 1_000, bodyMs: 1_000 },
};
/** Latency of a latency fault: past the 1 s header timeout (undici checks it about once a second). */
export const LATENCY_MS = 2_200;

/** The faults an apply can run under (each for the next `times` matching requests). */
export const FAULTS = {
  'list-503': { method: 'GET', path: '/groups/*/alertConfigs', status: 503 },
  'post-503': { method: 'POST', path: '/groups/*/alertConfigs', status: 503 },
  'put-503': { method: 'PUT', path: '/groups/*/alertConfigs/*', status: 503 },
  'delete-503': { method: 'DELETE', path: '/groups/*/alertConfigs/*', status: 503 },
  'post-429': { method: 'POST', path: '/groups/*/alertConfigs', status: 429, errorCode: 'RATE_LIMITED', retryAfter: 1 },
  'post-reset-after': { method: 'POST', path: '/groups/*/alertConfigs', reset: true, phase: 'after' },
  'put-reset-after': { method: 'PUT', path: '/groups/*/alertConfigs/*', reset: true, phase: 'after' },
  'delete-reset-after': { method: 'DELETE', path: '/groups/*/alertConfigs/*', reset: true, phase: 'after' },
  'post-reset-before': { method: 'POST', path: '/groups/*/alertConfigs', reset: true, phase: 'before' },
  'patch-reset-after': { method: 'PATCH', path: '/groups/*/alertConfigs/*', reset: true, phase: 'after' },
  'patch-503': { method: 'PATCH', path: '/groups/*/alertConfigs/*', status: 503 },
  'write-429': { path: '/groups/*/alertConfigs/*', status: 429, errorCode: 'RATE_LIMITED', retryAfter: 1 },
  'any-503': { path: '/**', status: 503 },
  'post-latency-after': { method: 'POST', path: '/groups/*/alertConfigs', latencyMs: LATENCY_MS, phase: 'after' },
  'post-latency-before': { method: 'POST', path: '/groups/*/alertConfigs', latencyMs: LATENCY_MS, phase: 'before' },
} satisfies Record<string, FaultSpec>;
/** A fault's name. */
export type FaultName = keyof typeof FAULTS;

/** One generated step. `entry` indexes the pool; `pick` chooses among the live objects of a kind. */
export type Step =
  | { t: 'desire'; entry: number; variant: number }
  | { t: 'undesire'; entry: number }
  | { t: 'rename'; entry: number }
  | { t: 'secret'; entry: number }
  | { t: 'humanToggle'; owned: boolean; pick: number }
  | { t: 'humanDelete'; owned: boolean; pick: number }
  | { t: 'humanSecret'; entry: number }
  | { t: 'humanCreate'; entry: number; variant: number; exact: boolean }
  | { t: 'apply'; fault: FaultName | null; times: number }
  | { t: 'plan' }
  | { t: 'loseState'; corrupt: boolean }
  | { t: 'restart' }
  | { t: 'release'; pick: number; renamed: boolean }
  | { t: 'redeclare'; pick: number; variant: number | null }
  | { t: 'dropRelease'; pick: number }
  | { t: 'fight'; pick: number; applies: number }
  | { t: 'ignore'; entry: number; member: Member; on: boolean }
  | { t: 'humanTune'; pick: number; member: Member; ignoredOnly: boolean }
  | { t: 'window'; state: WindowState; scoped: boolean };

const entry = fc.integer({ min: 0, max: POOL_SIZE - 1 });
const variant = fc.integer({ min: 0, max: 2 });
const pick = fc.nat({ max: 20 });
const faultName = fc.constantFrom(...(Object.keys(FAULTS) as FaultName[]));
const member = fc.constantFrom(...IGNORABLE);

/** A step that changes the world without running the tool. */
const editArb: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ t: fc.constant('desire' as const), entry, variant }), weight: 6 },
  { arbitrary: fc.record({ t: fc.constant('undesire' as const), entry }), weight: 3 },
  { arbitrary: fc.record({ t: fc.constant('rename' as const), entry }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('secret' as const), entry }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('humanToggle' as const), owned: fc.boolean(), pick }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('humanDelete' as const), owned: fc.boolean(), pick }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('humanCreate' as const), entry, variant, exact: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant('humanSecret' as const), entry }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('loseState' as const), corrupt: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('restart' as const) }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('release' as const), pick, renamed: fc.boolean() }), weight: 2 },
  {
    arbitrary: fc.record({ t: fc.constant('redeclare' as const), pick, variant: fc.option(variant, { nil: null }) }),
    weight: 2,
  },
  { arbitrary: fc.record({ t: fc.constant('dropRelease' as const), pick }), weight: 1 },
  { arbitrary: fc.record({ t: fc.constant('ignore' as const), entry, member, on: fc.boolean() }), weight: 3 },
  {
    arbitrary: fc.record({ t: fc.constant('humanTune' as const), pick, member, ignoredOnly: fc.boolean() }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      t: fc.constant('window' as const),
      state: fc.constantFrom<WindowState>('open', 'past', 'none'),
      scoped: fc.boolean(),
    }),
    weight: 2,
  },
);

/** A run of the tool: an apply (two in three under a fault), or a plan. */
const runArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({ t: fc.constant('apply' as const), fault: faultName, times: fc.integer({ min: 1, max: 5 }) }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ t: fc.constant('apply' as const), fault: fc.constant(null), times: fc.constant(0) }),
    weight: 2,
  },
  { arbitrary: fc.record({ t: fc.constant('plan' as const) }), weight: 1 },
);

/**
 * An update fight: the human changes the same field of the same owned config before each of several clean applies
 * (the test runs it, since the applies are part of it).
 */
const fightArb: fc.Arbitrary<Step> = fc.record({
  t: fc.constant('fight' as const),
  pick,
  applies: fc.integer({ min: 2, max: 4 }),
});

/** A round: up to three edits, then a run (so most runs have work for the fault to meet); now and then a fight. */
export const roundArb: fc.Arbitrary<Step[]> = fc.oneof(
  {
    arbitrary: fc.tuple(fc.array(editArb, { maxLength: 3 }), runArb).map(([edits, run]) => [...edits, run]),
    weight: 8,
  },
  { arbitrary: fc.tuple(fc.array(editArb, { maxLength: 2 }), fightArb).map(([edits, f]) => [...edits, f]), weight: 1 },
);

/** The desired state a case starts from (applied before the steps): some pool entries, each in some variant. */
export const initialArb: fc.Arbitrary<Step[]> = fc
  .subarray([...Array(POOL_SIZE).keys()], { minLength: 1, maxLength: 3 })
  .chain((entries) =>
    fc.tuple(...entries.map((e) => fc.record({ t: fc.constant('desire' as const), entry: fc.constant(e), variant }))),
  );

/** The body of pool entry `e` in variant `v`: 0 as catalogued, 1 `enabled` flipped, 2 the first notification 3 min later. */
export function variantBody(e: number, v: number): SpecBody {
  const body = (POOL[e] as AlertSpec).body;
  if (v === 1) return { ...body, enabled: !body.enabled };
  if (v === 2) {
    const [first, ...rest] = body.notifications;
    return { ...body, notifications: [{ ...first, delayMin: Number(first?.delayMin ?? 0) + 3 }, ...rest] };
  }
  return body;
}

// The test tells desired identities apart by signature: no two variants of the pool may share one.
const SIGNATURES = POOL.flatMap((_, e) => [0, 1, 2].map((v) => signature(variantBody(e, v))));
if (new Set(SIGNATURES).size !== SIGNATURES.length) throw new Error('two variants of the model pool share a signature');

/** What the model knows besides Ops Manager and the state file. */
export interface ModelState {
  /** Desired pool entries: their key and variant. */
  desired: Map<number, { key: string; variant: number }>;
  /** Renames so far (for fresh key names). */
  renames: number;
  /** Bumps per secret (`<secretId>#<jsonKey>`). */
  bumps: Map<string, number>;
  /**
   * Configs the tool must not touch: the seed's defaults and what the human created, as last read or written by the
   * human. `adoptable` once an apply ran while a desired config had its signature (the README lets adoption take it).
   */
  unmanaged: Map<string, { config: AlertConfig; adoptable: boolean }>;
  /** Ids the state owned when the state was lost: ownership unknown since, so left alone unless adopted again. */
  orphans: Set<string>;
  /**
   * Keys listed in `spec.release` (never also desired), with the pool entry and variant they had. The entry may be
   * desired again under another key (a key released while its alert lives on renamed).
   */
  released: Map<string, { entry: number; variant: number }>;
  /** `ignoreFields` per pool entry (rendered while the entry is desired; forgotten when it leaves git). */
  ignored: Map<number, Set<Member>>;
  /** The value a human last gave a member of an owned config (`<id> <member>`), while that member was ignored. */
  tuned: Map<string, unknown>;
  /** The change window Settings holds, and whether it names the project (else it matches every target). */
  window: { state: WindowState; scoped: boolean };
  /**
   * True from an apply that exits 0 until a step that may give the next run work: every step but plans, restarts,
   * window toggles and a human's edits of ignored members alone.
   */
  quiet: boolean;
  /**
   * True from an apply that exits 0 until a human's edit of a member not ignored (or any other human step, or a lost
   * state): while true no change may be flagged as drift, whatever git says meanwhile.
   */
  calm: boolean;
  /**
   * A copy of the state directory taken before the first apply a window held since it last closed ('lost' when the
   * state was lost meanwhile, so the copy says nothing of what the held applies did); null when no apply was held.
   */
  heldFrom: string | null;
}

/** A project's state entry as the state file holds it (the fields the model reads). */
export interface ProjectRecords {
  alertConfigs: Record<string, { id?: string; pendingCreate?: unknown }>;
  driftStreaks: Record<string, { runs: number }>;
}

/** One case: a temp dir with the world's files, an emulator with a data file, the human's client. */
export class ModelWorld {
  readonly project = PROJECT;
  readonly model: ModelState = {
    desired: new Map(),
    renames: 0,
    bumps: new Map(),
    unmanaged: new Map(),
    orphans: new Set(),
    released: new Map(),
    ignored: new Map(),
    tuned: new Map(),
    window: { state: 'none', scoped: false },
    quiet: false,
    calm: false,
    heldFrom: null,
  };
  emulator!: RunningEmulator;
  admin!: EmulatorAdmin;
  paths!: RunPaths;
  private dir = '';
  private dataFile = '';
  private port = 0;

  /** Creates the files and starts the emulator; records the seed's defaults as unmanaged. */
  async start(): Promise<void> {
    this.dir = await mkdtemp(join(tmpdir(), 'opsman-rel-model-'));
    this.paths = await writeWorld(this.world(), this.dir);
    this.dataFile = join(this.dir, 'emulator-data.json');
    await this.writeDesired();
    await this.boot();
    for (const c of await this.live()) this.model.unmanaged.set(c.id, { config: c, adoptable: false });
  }

  private async boot(): Promise<void> {
    this.emulator = await startEmulator({
      port: this.port,
      host: '127.0.0.1',
      seed: renderSeed(BASE),
      admin: true,
      dataFile: this.dataFile,
      onError: () => {},
    });
    this.port = Number(new URL(this.emulator.origin).port);
    this.admin = new EmulatorAdmin(this.emulator.origin);
  }

  /** Stops the emulator and removes the files. */
  async close(): Promise<void> {
    await this.emulator?.close();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  /** The world the desired state and secrets file are rendered from. */
  world(): World {
    const alerts: AlertSpec[] = [...this.model.desired.entries()]
      .sort(([a], [b]) => a - b)
      .map(([e, d]) => ({ ...(POOL[e] as AlertSpec), key: d.key, body: variantBody(e, d.variant) }));
    return { ...BASE, templateKeys: [], projects: [{ ...PROJECT, alerts, prune: true }], secrets: this.secrets() };
  }

  /** Every pool secret, with its bumps applied. */
  secrets(): World['secrets'] {
    const out: World['secrets'] = {};
    for (const a of POOL) {
      for (const s of a.secrets) {
        const n = this.model.bumps.get(`${s.secretId}#${s.jsonKey}`) ?? 0;
        const value = n === 0 ? s.value : s.jsonKey === 'webhook-url' ? `${s.value}/v${n}` : `${s.value}v${n}`;
        out[s.secretId] = { ...(out[s.secretId] ?? {}), [s.jsonKey]: value };
      }
    }
    return out;
  }

  /** The signatures of the desired configs. */
  desiredSignatures(): string[] {
    return [...this.model.desired.entries()].map(([e, d]) => signature(variantBody(e, d.variant)));
  }

  private async writeDesired(): Promise<void> {
    const world = this.world();
    await rm(this.paths.desiredDir, { recursive: true, force: true });
    for (const file of renderDesiredState(world)) {
      const path = join(this.paths.desiredDir, file.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, file.text);
    }
    // No gate of the README's prune table may hold a fault-free apply back: deletes are what the model exercises.
    const settings = [
      'apiVersion: opsman-gitops/v1',
      'kind: Settings',
      'spec:',
      '  mode: apply',
      '  prune: { maxDeletes: 100, allowEmpty: true }',
      ...windowLines(this.model.window.state, this.model.window.scoped ? PROJECT.id : null),
      '',
    ].join('\n');
    await writeFile(join(this.paths.desiredDir, 'settings.yaml'), settings);
    const released = [...this.model.released.keys()].sort();
    const ignoring = [...this.model.desired].filter(([e]) => (this.model.ignored.get(e)?.size ?? 0) > 0);
    if (released.length > 0 || ignoring.length > 0) {
      const file = join(this.paths.desiredDir, 'projects', `${PROJECT.name}.yaml`);
      const doc = parse(await readFile(file, 'utf8')) as { spec: Record<string, unknown> };
      if (released.length > 0) doc.spec.release = released;
      const configs = (doc.spec.alertConfigs ?? []) as Record<string, unknown>[];
      for (const [e, d] of ignoring) {
        const config = configs.find((c) => c.key === d.key);
        if (config) config.ignoreFields = IGNORABLE.filter((m) => this.model.ignored.get(e)?.has(m));
      }
      await writeFile(file, stringify(doc, { lineWidth: 0 }));
    }
    await writeFile(this.paths.secretsFile, `${JSON.stringify(world.secrets, null, 2)}\n`, { mode: 0o600 });
  }

  /** The project's live alert configs (faults cleared first). */
  async live(): Promise<AlertConfig[]> {
    await this.admin.clearFaults();
    return (await readLive(this.emulator.url, this.world())).get(PROJECT.id) ?? [];
  }

  /** Ids the state file owns, or null when there is no readable state. */
  async owned(): Promise<Set<string> | null> {
    const byKey = await this.ownedByKey();
    return byKey === null ? null : new Set(byKey.values());
  }

  /** The project's records and streaks in the state file, or null when there is no readable state. */
  async records(): Promise<ProjectRecords | null> {
    try {
      const state = JSON.parse(await readFile(join(this.paths.stateDir, 'state.json'), 'utf8'));
      const entry = state?.projects?.[PROJECT.id] ?? {};
      return { alertConfigs: entry.alertConfigs ?? {}, driftStreaks: entry.driftStreaks ?? {} };
    } catch {
      return null;
    }
  }

  /** The state file's owned ids by key, or null when there is no readable state. */
  ownedByKey(): Promise<Map<string, string> | null> {
    return readOwned(this.paths.stateDir);
  }

  /**
   * Secrets the emulator stores that differ from the desired values, as `<key> <notification type>.<field>` (never
   * the values): read from its data file, which holds them in clear, since the API only answers them redacted.
   */
  async secretMismatches(): Promise<string[]> {
    const data = JSON.parse(await readFile(this.dataFile, 'utf8')) as { state: { alertConfigs: AlertConfig[] } };
    const stored = new Map(data.state.alertConfigs.map((c) => [c.id, c]));
    const byKey = (await this.ownedByKey()) ?? new Map<string, string>();
    const secrets = this.secrets();
    const out: string[] = [];
    for (const [e, d] of this.model.desired) {
      const spec = variantBody(e, d.variant);
      const sent = resolveSpecBody(spec, secrets).notifications as unknown as Record<string, unknown>[];
      const have = (stored.get(byKey.get(d.key) ?? '')?.notifications ?? []) as unknown as Record<string, unknown>[];
      for (const [i, n] of spec.notifications.entries()) {
        for (const [field, value] of Object.entries(n)) {
          if (value === null || typeof value !== 'object' || !('secretRef' in value)) continue;
          const live = have.find((h) => h.typeName === n.typeName);
          if (live?.[field] !== sent[i]?.[field]) out.push(`${d.key} ${String(n.typeName)}.${field}`);
        }
      }
    }
    return out;
  }

  /** Runs the reconciler once with the model's client options. */
  run(command: 'plan' | 'apply'): Promise<RunOutcome> {
    return runOnce(this.emulator.url, this.paths, { command }, MODEL_CLIENT);
  }

  private human() {
    return createOpsManagerClient({
      baseUrl: this.emulator.url,
      publicKey: DRIFT_KEY.publicKey,
      privateKey: DRIFT_KEY.privateKey,
      retry: FAST_RETRY,
    });
  }

  /** The candidates of a human step: owned ids (from the state), or the unmanaged ones still tracked. */
  private async candidates(owned: boolean): Promise<string[]> {
    if (owned) return [...((await this.owned()) ?? [])].sort();
    return [...this.model.unmanaged.keys()].sort();
  }

  /** Performs a step that is not a run: edits of git, the secrets file, Ops Manager by hand, the state, a restart. */
  async edit(step: Exclude<Step, { t: 'apply' } | { t: 'plan' } | { t: 'fight' }>): Promise<void> {
    const m = this.model;
    // A later run may have work, except after the steps the README promises leave none.
    if (step.t !== 'restart' && step.t !== 'window' && step.t !== 'humanTune' && step.t !== 'humanToggle')
      m.quiet = false;
    if (['humanDelete', 'humanCreate', 'humanSecret', 'loseState'].includes(step.t)) m.calm = false;
    switch (step.t) {
      case 'ignore': {
        const d = m.desired.get(step.entry);
        if (!d || !ignorableOn(variantBody(step.entry, d.variant), step.member)) return;
        const set = m.ignored.get(step.entry) ?? new Set<Member>();
        if (step.on) set.add(step.member);
        else set.delete(step.member);
        m.ignored.set(step.entry, set);
        return this.writeDesired();
      }
      case 'window':
        m.window = { state: step.state, scoped: step.scoped };
        return this.writeDesired();
      case 'humanTune':
        return this.humanTune(step.pick, step.member, step.ignoredOnly);
      case 'desire': {
        // A released entry declared again keeps its key (it leaves spec.release: a key may not be in both).
        const back = [...m.released].find(([, r]) => r.entry === step.entry)?.[0];
        const key = m.desired.get(step.entry)?.key ?? back ?? (POOL[step.entry] as AlertSpec).key;
        if (!m.desired.has(step.entry) && back !== undefined) m.released.delete(back);
        m.desired.set(step.entry, { key, variant: step.variant });
        return this.writeDesired();
      }
      case 'release': {
        const entries = [...m.desired.keys()].sort((a, b) => a - b);
        const e = entries[step.pick % Math.max(1, entries.length)];
        const d = e === undefined ? undefined : m.desired.get(e);
        if (e === undefined || d === undefined) return;
        m.released.set(d.key, { entry: e, variant: d.variant });
        if (step.renamed) {
          // The alert lives on under a new key in the same commit: the docs say it is created, not moved.
          m.renames++;
          d.key = `${(POOL[e] as AlertSpec).key}-r${m.renames}`;
        } else {
          m.desired.delete(e);
          m.ignored.delete(e);
        }
        return this.writeDesired();
      }
      case 'redeclare': {
        const keys = [...m.released.keys()].sort();
        const key = keys[step.pick % Math.max(1, keys.length)];
        const r = key === undefined ? undefined : m.released.get(key);
        // One key per pool entry: an entry desired under another key stays released here.
        if (key === undefined || r === undefined || m.desired.has(r.entry)) return;
        m.released.delete(key);
        m.desired.set(r.entry, { key, variant: step.variant ?? r.variant });
        return this.writeDesired();
      }
      case 'dropRelease': {
        const keys = [...m.released.keys()].sort();
        const key = keys[step.pick % Math.max(1, keys.length)];
        if (key === undefined) return;
        m.released.delete(key);
        return this.writeDesired();
      }
      case 'undesire':
        m.desired.delete(step.entry);
        m.ignored.delete(step.entry);
        return this.writeDesired();
      case 'rename': {
        const d = m.desired.get(step.entry);
        if (!d) return;
        m.renames++;
        d.key = `${(POOL[step.entry] as AlertSpec).key}-r${m.renames}`;
        return this.writeDesired();
      }
      case 'secret': {
        const s = (POOL[step.entry] as AlertSpec).secrets[0];
        if (!s) return;
        const id = `${s.secretId}#${s.jsonKey}`;
        m.bumps.set(id, (m.bumps.get(id) ?? 0) + 1);
        return this.writeDesired();
      }
      case 'humanToggle':
      case 'humanDelete': {
        const ids = await this.candidates(step.owned);
        const id = ids[step.pick % Math.max(1, ids.length)];
        if (id === undefined) return;
        const live = (await this.live()).find((c) => c.id === id);
        if (!live) return;
        const human = this.human();
        try {
          if (step.t === 'humanDelete') {
            m.quiet = false;
            await human.deleteAlertConfig(PROJECT.id, id);
            m.unmanaged.delete(id);
          } else {
            await human.setAlertConfigEnabled(PROJECT.id, id, live.enabled !== true);
            const after = (await this.live()).find((c) => c.id === id);
            const tracked = m.unmanaged.get(id);
            if (tracked && after) tracked.config = after;
            const ignored = step.owned ? await this.ignoredOf(id) : undefined;
            if (ignored?.has('enabled')) m.tuned.set(`${id} enabled`, after?.enabled === true);
            else this.noisy();
          }
        } finally {
          await human.close();
        }
        return;
      }
      case 'humanSecret': {
        // A secret replaced by hand, visibly so in its redaction (other host, other last characters): the README says
        // the next apply sees it and sends the desired value again.
        const d = m.desired.get(step.entry);
        const id = d ? (await this.ownedByKey())?.get(d.key) : undefined;
        const live = (await this.live()).find((c) => c.id === id);
        const spec = d ? variantBody(step.entry, d.variant) : undefined;
        if (!live || !spec || (POOL[step.entry] as AlertSpec).secrets.length === 0) return;
        const body = resolveSpecBody(spec, this.secrets());
        const notifications = (body.notifications as unknown as Record<string, unknown>[]).map((n, i) => {
          const out = { ...n };
          for (const [field, value] of Object.entries(spec.notifications[i] ?? {})) {
            if (value === null || typeof value !== 'object' || !('secretRef' in value)) continue;
            // Fully masked on read: a hand replacement cannot be seen (README, "replaced by hand").
            if (field === 'webhookSecret') continue;
            const text = String(n[field]);
            out[field] = text.startsWith('https://') ? 'https://hooks.other.example/replaced' : `${text}Zq9`;
          }
          return out;
        });
        const human = this.human();
        try {
          await human.updateAlertConfig(PROJECT.id, live.id, {
            ...body,
            enabled: live.enabled === true,
            notifications,
          } as unknown as AlertConfigRequest);
        } finally {
          await human.close();
        }
        return;
      }
      case 'humanCreate': {
        const body = variantBody(step.entry, step.variant);
        // A near-miss: a delay no variant uses, so it can never be adopted.
        const made = step.exact
          ? body
          : {
              ...body,
              notifications: body.notifications.map((n, i) => (i === 0 ? { ...n, delayMin: 300 + step.entry } : n)),
            };
        const human = this.human();
        try {
          const created = await human.createAlertConfig(PROJECT.id, resolveSpecBody(made, this.secrets()));
          const live = (await this.live()).find((c) => c.id === created?.id);
          if (!live) throw new Error('the human create answered no id');
          m.unmanaged.set(live.id, { config: live, adoptable: false });
        } finally {
          await human.close();
        }
        return;
      }
      case 'loseState': {
        if (m.heldFrom !== null) m.heldFrom = 'lost';
        const owned = (await this.owned()) ?? new Set<string>();
        for (const id of owned) m.orphans.add(id);
        // A config made by a create whose answer was lost is known only by its pending marker, which goes with the
        // state (README, crash-safe creates: a lost state has lost the marker, so nothing is recognised): it is the
        // tool's, forgotten like the owned ones. Every config a person made is tracked as unmanaged already.
        for (const c of await this.live()) if (!owned.has(c.id) && !m.unmanaged.has(c.id)) m.orphans.add(c.id);
        const file = join(this.paths.stateDir, 'state.json');
        if (step.corrupt) await writeFile(file, '{"formatVersion": 1, "projects": [torn');
        else await unlink(file).catch(() => {});
        return;
      }
      case 'restart':
        await this.emulator.close();
        return this.boot();
    }
  }

  /** The ignored members of the desired config that owned config `id` is for (empty when none). */
  async ignoredOf(id: string): Promise<Set<Member>> {
    const byKey = (await this.ownedByKey()) ?? new Map<string, string>();
    for (const [e, d] of this.model.desired)
      if (byKey.get(d.key) === id) return new Set(this.model.ignored.get(e) ?? []);
    return new Set();
  }

  /**
   * A human edits one member of an owned desired config with their own key: one of its ignored members (`ignoredOnly`,
   * nothing when it has none), or `member`. `enabled` by PATCH, the others by a full PUT of the config as Ops Manager
   * stores it (secrets in clear, read from the data file, so nothing else changes).
   */
  private async humanTune(pick: number, wanted: Member, ignoredOnly: boolean): Promise<void> {
    const byKey = (await this.ownedByKey()) ?? new Map<string, string>();
    const entries = [...this.model.desired].filter(([, d]) => byKey.has(d.key)).sort(([a], [b]) => a - b);
    const chosen = entries[pick % Math.max(1, entries.length)];
    if (chosen === undefined) return this.noisy();
    const [e, d] = chosen;
    const id = byKey.get(d.key) as string;
    const ignored = [...(this.model.ignored.get(e) ?? [])].sort();
    const member = ignoredOnly ? ignored[pick % Math.max(1, ignored.length)] : wanted;
    const live = (await this.live()).find((c) => c.id === id);
    if (member === undefined || live === undefined || !ignorableOn(variantBody(e, d.variant), member))
      return this.noisy();
    const value = tunedValue(live, member);
    const human = this.human();
    try {
      if (member === 'enabled') {
        await human.setAlertConfigEnabled(PROJECT.id, id, value === true);
      } else {
        const data = JSON.parse(await readFile(this.dataFile, 'utf8')) as { state: { alertConfigs: AlertConfig[] } };
        const stored = data.state.alertConfigs.find((c) => c.id === id);
        if (stored === undefined) return this.noisy();
        const body = liveAsRequest(stored);
        await human.updateAlertConfig(PROJECT.id, id, { ...body, [member]: value } as unknown as AlertConfigRequest);
      }
    } finally {
      await human.close();
    }
    const after = (await this.live()).find((c) => c.id === id);
    if (after === undefined) throw new Error(`the human's edit of ${id} lost it`);
    if (ignored.includes(member)) this.model.tuned.set(`${id} ${member}`, memberValue(after, member));
    else this.noisy();
  }

  /** Before an apply a window holds: keeps a copy of the state directory, unless one was kept since it opened. */
  async noteHold(): Promise<void> {
    if (this.model.heldFrom !== null) return;
    const copy = join(this.dir, 'state-before-hold');
    await rm(copy, { recursive: true, force: true });
    await cp(this.paths.stateDir, copy, { recursive: true }).catch(() => mkdir(copy, { recursive: true }));
    this.model.heldFrom = copy;
  }

  /**
   * The same apply in a world where the window never existed: Ops Manager as it is now (the held applies wrote
   * nothing), the state as it was before the first held apply, git without `changeWindows`, on a second emulator.
   * Returns its outcome and, per live config, its signature and owning key.
   */
  async twinApply(stateCopy: string): Promise<{ outcome: RunOutcome; inventory: string[] }> {
    const twin = join(this.dir, 'twin');
    await rm(twin, { recursive: true, force: true });
    const paths: RunPaths = {
      desiredDir: join(twin, 'desired'),
      secretsFile: this.paths.secretsFile,
      stateDir: join(twin, 'state'),
      archiveDir: join(twin, 'archive'),
    };
    await cp(this.paths.desiredDir, paths.desiredDir, { recursive: true });
    await cp(stateCopy, paths.stateDir, { recursive: true });
    const settings = join(paths.desiredDir, 'settings.yaml');
    const text = await readFile(settings, 'utf8');
    await writeFile(settings, text.replace(/ {2}changeWindows:\n(?: {4,}.*\n)*/, ''));
    await cp(this.dataFile, join(twin, 'emulator-data.json'));
    const emulator = await startEmulator({
      port: 0,
      host: '127.0.0.1',
      seed: renderSeed(BASE),
      dataFile: join(twin, 'emulator-data.json'),
      onError: () => {},
    });
    try {
      const outcome = await runOnce(emulator.url, paths, { command: 'apply' }, MODEL_CLIENT);
      const live = (await readLive(emulator.url, this.world())).get(PROJECT.id) ?? [];
      const state = await readOwned(paths.stateDir);
      return { outcome, inventory: ownedInventory(live, state) };
    } finally {
      await emulator.close();
    }
  }

  /** Per live config of this world: its signature and owning key (`-` when none), sorted. */
  async inventory(): Promise<string[]> {
    return ownedInventory(await this.live(), await readOwned(this.paths.stateDir));
  }

  /** Marks that the next run may have work. */
  private noisy(): void {
    this.model.quiet = false;
    this.model.calm = false;
  }

  /** Before an apply: unmanaged configs equal in signature to a desired one may be adopted from now on. */
  markAdoptable(live: AlertConfig[]): void {
    for (const c of live) {
      const tracked = this.model.unmanaged.get(c.id);
      // Adoption takes a config equal but for the desired config's ignored members.
      const wanted = [...this.model.desired].some(([e, d]) => {
        const body = variantBody(e, d.variant);
        return managedSignature(c, body, this.model.ignored.get(e) ?? new Set()) === signature(body);
      });
      if (tracked && wanted) tracked.adoptable = true;
    }
  }

  /**
   * How the test tells desired identities apart: an owned config of a desired key by its signature with its ignored
   * members taken from git (a human's value there is no difference), any other config by its plain signature.
   */
  async signer(): Promise<(c: AlertConfig) => string> {
    const byKey = (await this.ownedByKey()) ?? new Map<string, string>();
    const forId = new Map<string, number>();
    for (const [e, d] of this.model.desired) {
      const id = byKey.get(d.key);
      if (id !== undefined) forId.set(id, e);
    }
    return (c) => {
      const e = forId.get(c.id);
      const d = e === undefined ? undefined : this.model.desired.get(e);
      if (e === undefined || d === undefined) return signature(c);
      return managedSignature(c, variantBody(e, d.variant), this.model.ignored.get(e) ?? new Set());
    };
  }

  /**
   * After an apply: each released key whose record the apply forgot leaves its config (as it was before the apply,
   * which the test checks) to the unmanaged ones, and so does a config that a forgotten marker's create made late.
   * Returns the released keys whose record went.
   */
  async settleReleases(
    before: ProjectRecords | null,
    after: ProjectRecords | null,
    live: AlertConfig[],
  ): Promise<string[]> {
    const out: string[] = [];
    if (before === null || after === null) return out;
    const owned = new Set(Object.values(after.alertConfigs).map((r) => r.id));
    for (const [key, r] of this.model.released) {
      const record = Object.hasOwn(before.alertConfigs, key) ? before.alertConfigs[key] : undefined;
      if (record === undefined || Object.hasOwn(after.alertConfigs, key)) continue;
      out.push(key);
      const sig = signature(variantBody(r.entry, r.variant));
      for (const c of live) {
        if (owned.has(c.id) || this.model.unmanaged.has(c.id)) continue;
        // The released config itself, even one orphaned by a lost state and adopted again since.
        const late = record.id === undefined && signature(c) === sig && !this.model.orphans.has(c.id);
        if (c.id === record.id || late) {
          this.model.orphans.delete(c.id);
          this.model.unmanaged.set(c.id, { config: c, adoptable: false });
        }
      }
    }
    return out;
  }

  /** The human's side of a fight: sets `enabled` of owned config `id` against the desired value. */
  async humanFight(id: string, enabled: boolean): Promise<void> {
    const human = this.human();
    try {
      await human.setAlertConfigEnabled(PROJECT.id, id, enabled);
    } finally {
      await human.close();
    }
  }

  /** The desired `enabled` of pool entry `e` as declared now (undefined when not desired). */
  desiredEnabled(e: number): boolean | undefined {
    const d = this.model.desired.get(e);
    return d === undefined ? undefined : variantBody(e, d.variant).enabled === true;
  }

  /** Injects a fault for the next `times` matching requests. */
  async inject(fault: FaultName, times: number): Promise<void> {
    await this.admin.fault({ ...FAULTS[fault], times });
  }
}

/** The owned ids by key of the state in `stateDir`, or null when there is no readable state. */
async function readOwned(stateDir: string): Promise<Map<string, string> | null> {
  try {
    const state = JSON.parse(await readFile(join(stateDir, 'state.json'), 'utf8'));
    const records = (state?.projects?.[PROJECT.id]?.alertConfigs ?? {}) as Record<string, { id?: unknown }>;
    const out = new Map<string, string>();
    for (const [key, r] of Object.entries(records)) if (typeof r.id === 'string') out.set(key, r.id);
    return out;
  } catch {
    return null;
  }
}

/** `<signature> @ <owning key or ->` of each live config, sorted: a world's configs and ownership, ids aside. */
function ownedInventory(live: AlertConfig[], owned: Map<string, string> | null): string[] {
  const keyOf = new Map([...(owned ?? new Map<string, string>())].map(([key, id]) => [id, key]));
  return live.map((c) => `${signature(c)} @ ${keyOf.get(c.id) ?? '-'}`).sort();
}

/**
 * Whether a run's outcome claims that everything it planned was done: it did not throw and the CLI would exit 0
 * (`reportExitCode`, the one place exit codes come from). A report that counts failed writes or failed targets must
 * never exit 0.
 */
export function claimsSuccess(outcome: RunOutcome): boolean {
  const r = outcome.report;
  if (outcome.error !== undefined || r === undefined) return false;
  const ok = reportExitCode(r) === 0;
  if (ok && (r.summary.failed > 0 || r.summary.targetsFailed > 0 || r.summary.blocked > 0)) {
    throw new Error(`exit code 0 for a report with failures: ${JSON.stringify(r.summary)}`);
  }
  return ok;
}
