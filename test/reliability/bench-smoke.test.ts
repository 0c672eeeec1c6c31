// Scenario: the benchmark's generators, minimum-request calculator, SVG chart and results table at tiny sizes give exactly the expected values.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseAbArgs } from '../../bench/ab-compare.ts';
import { resolveSpecBody } from '../../bench/alert-catalogue.ts';
import { parseBenchArgs } from '../../bench/args.ts';
import { describePeak, medianPair, runCase } from '../../bench/case.ts';
import { median } from '../../bench/cold-start.ts';
import { renderDesiredState, renderSecretsFile } from '../../bench/desired.ts';
import { parseEmulatorUrl } from '../../bench/emulator-process.ts';
import { minimumRequests, pagesFor, phaseMinimum, ratio, routeDifferences, selectDrift } from '../../bench/minimum.ts';
import { summariseProfile } from '../../bench/profile-summary.ts';
import { type CaseResult, caseKey, type PhaseResult, renderCaseTable, writeResults } from '../../bench/results.ts';
import { renderSeed } from '../../bench/seed.ts';
import { niceCeiling, renderLineChart } from '../../bench/svg-chart.ts';
import { buildWorld, countDesiredAlerts } from '../../bench/world.ts';
import { FsDesiredStateSource } from '../../lambdas/adapters/local/desired-source-fs.ts';
import { FileSecretResolver } from '../../lambdas/adapters/local/secrets-file.ts';
import { loadDesiredState } from '../../lambdas/core/desired/index.ts';

/** Every `secretRef` value anywhere in a parsed YAML document. */
function secretRefsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => secretRefsIn(v));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'secretRef' && typeof v === 'string' ? [v] : secretRefsIn(v),
  );
}

describe('bench generators', () => {
  it('builds a deterministic world of N x M with distinct alert bodies per project', () => {
    const world = buildWorld({ projects: 10, alerts: 8 });
    expect(world.projects).toHaveLength(10);
    expect(world.orgs).toHaveLength(2);
    expect(countDesiredAlerts(world)).toBe(80);
    expect(world.templateKeys).toEqual(['baseline-primary-elected', 'baseline-no-primary-pd', 'baseline-disk-full']);
    for (const p of world.projects) {
      const bodies = p.alerts.map((a) => JSON.stringify(a.body));
      expect(new Set(bodies).size).toBe(bodies.length);
      expect(new Set(p.alerts.map((a) => a.key)).size).toBe(p.alerts.length);
    }
    expect(JSON.stringify(buildWorld({ projects: 10, alerts: 8 }))).toBe(JSON.stringify(world));
  });

  it('renders a seed with the GLOBAL_OWNER key, every project and the default alerts', () => {
    const world = buildWorld({ projects: 3, alerts: 5 });
    const seed = renderSeed(world, new Date('2026-11-21T10:00:00Z'));
    const keys = seed.apiKeys as { publicKey: string; roles: { roleName: string }[] }[];
    expect(keys.map((k) => [k.publicKey, k.roles[0]?.roleName])).toEqual([
      ['gitopsbt', 'GLOBAL_OWNER'],
      ['benchhmn', 'GLOBAL_OWNER'],
    ]);
    expect((seed.projects as unknown[]).length).toBe(3);
    expect((seed.alertConfigs as unknown[]).length).toBe(9);
    expect((seed.physicalHosts as unknown[]).length).toBe(6);
  });

  it('renders desired-state files whose secretRefs all resolve from the generated secrets file', () => {
    const world = buildWorld({ projects: 4, alerts: 9 });
    const files = renderDesiredState(world);
    expect(files.map((f) => f.path).slice(0, 3)).toEqual([
      'organizations.yaml',
      'projects/svc-00000-prod.yaml',
      'projects/svc-00001-staging.yaml',
    ]);
    expect(files).toHaveLength(4 + 3);
    const docs = files.flatMap((f) => parseAllDocuments(f.text).map((d) => d.toJS() as { kind: string }));
    expect(docs.filter((d) => d.kind === 'Project')).toHaveLength(4);
    expect(docs.filter((d) => d.kind === 'Organization')).toHaveLength(2);
    const secrets = JSON.parse(renderSecretsFile(world)) as Record<string, Record<string, string>>;
    // Every secretRef written in the files (templates included) names a value of the secrets file.
    const refs = docs.flatMap((d) => secretRefsIn(d));
    expect(refs.length).toBeGreaterThan(0);
    const unresolved = refs.filter((ref) => {
      const [id = '', key = ''] = ref.split('#');
      const value = secrets[id]?.[key];
      return typeof value !== 'string' || value === '';
    });
    expect(unresolved).toEqual([]);
    // And the world's own bodies resolve the same way (the bench's live side uses them).
    for (const p of world.projects) {
      for (const a of p.alerts) {
        const body = resolveSpecBody(a.body, secrets);
        expect(JSON.stringify(body)).not.toContain('secretRef');
      }
    }
  });
});

describe('generated desired state through the real loader', () => {
  it('loads 10 x 8 with no issue, every template merged, and resolves every secretRef', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-desired-'));
    try {
      const world = buildWorld({ projects: 10, alerts: 8 });
      for (const f of renderDesiredState(world)) {
        await mkdir(join(dir, 'desired', f.path, '..'), { recursive: true });
        await writeFile(join(dir, 'desired', f.path), f.text);
      }
      await writeFile(join(dir, 'secrets.json'), renderSecretsFile(world));
      const result = await loadDesiredState(new FsDesiredStateSource(join(dir, 'desired')));
      if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
      expect(result.state.projects).toHaveLength(10);
      expect(result.state.organizations).toHaveLength(2);
      expect(result.state.settings.mode).toBe('apply');
      const project = result.state.projects.find((p) => p.projectId === world.projects[3]?.id);
      expect(project?.alertConfigs.map((a) => a.key).sort()).toEqual(
        world.projects[3]?.alerts.map((a) => a.key).sort(),
      );
      const resolver = new FileSecretResolver(join(dir, 'secrets.json'));
      const refs = JSON.stringify(result.state).match(/"secretRef":"[^"]+"/g) ?? [];
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of new Set(refs)) {
        const value = await resolver.resolve(ref.slice('"secretRef":"'.length, -1));
        expect(value.length).toBeGreaterThan(8);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('minimum requests', () => {
  it.each([
    [0, 1],
    [1, 1],
    [500, 1],
    [501, 2],
    [1500, 3],
  ])('pagesFor(%i) = %i', (items, pages) => {
    expect(pagesFor(items)).toBe(pages);
  });

  it('adds pages, singleton reads and writes by method', () => {
    expect(minimumRequests({ lists: [3, 600], singletonReads: 4, writes: { POST: 5, PATCH: 0 } })).toEqual({
      listPages: 3,
      singletonReads: 4,
      writes: 5,
      total: 12,
      byMethod: { GET: 7, POST: 5 },
    });
  });

  it.each([
    // 10 alert lists, 2 org + 10 x 2 project singletons, 2 distinct teams (6 projects notify their org's team).
    ['apply-initial', 114, { GET: 34, POST: 80 }],
    ['plan-noop', 34, { GET: 34 }],
    ['apply-drift', 36, { GET: 35, PATCH: 1 }],
    ['archive', 12, { GET: 12 }],
  ] as const)('phase %s of 10 x 8 needs %i requests', (phase, total, byMethod) => {
    const world = buildWorld({ projects: 10, alerts: 8 });
    const minimum = phaseMinimum(world, phase);
    expect(minimum.total).toBe(total);
    expect(minimum.byMethod).toEqual(byMethod);
    expect(Object.values(minimum.byRoute ?? {}).reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('selects 1% of the enabled alerts for drift, spread evenly', () => {
    const world = buildWorld({ projects: 200, alerts: 25 });
    const drift = selectDrift(world);
    const enabled = world.projects.reduce((n, p) => n + p.alerts.filter((a) => a.body.enabled).length, 0);
    expect(drift.targets).toHaveLength(Math.ceil(enabled / 100));
    expect(drift.projects).toBe(drift.targets.length);
  });

  it.each([
    [105, 100, 1.05],
    [0, 0, 1],
    [1, 3, 0.333],
  ])('ratio(%i, %i) = %d', (a, m, r) => {
    expect(ratio(a, m)).toBe(r);
  });
});

describe('charts and results', () => {
  it.each([
    [0, 1],
    [0.7, 1],
    [3, 5],
    [12, 20],
    [101, 200],
  ])('niceCeiling(%d) = %d', (max, nice) => {
    expect(niceCeiling(max)).toBe(nice);
  });

  it('draws one path per series and one circle per point, escaping names', () => {
    const svg = renderLineChart(
      [
        {
          title: 'ms per project',
          yLabel: 'ms',
          series: [
            {
              name: 'plan <noop>',
              points: [
                { x: 10, y: 2 },
                { x: 100, y: 2.1 },
                { x: 1000, y: 1.9 },
              ],
            },
          ],
        },
      ],
      { title: 'Scaling', xLabel: 'projects' },
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(1);
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('plan &lt;noop&gt;');
  });

  it('writes the results json and a markdown table, merging cases of the same date', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-results-'));
    try {
      const world = buildWorld({ projects: 2, alerts: 2 });
      const c: CaseResult = {
        projects: 2,
        alerts: 2,
        concurrency: 8,
        startedAt: '2026-11-21T10:00:00.000Z',
        phases: [
          {
            phase: 'plan-noop',
            wallMs: 1234,
            observed: { total: 8, attempts: 8, byMethod: { GET: 8 } },
            emulator: { total: 9, challenges: 1, byMethod: { GET: 9 } },
            requestsPerProject: 4,
            peakRssMb: 120.4,
            minimum: phaseMinimum(world, 'plan-noop'),
            ratioToMinimum: 1,
            bareMs: 1000,
            overhead: 1.234,
            notes: [],
          },
        ],
      };
      expect(renderCaseTable(c)).toContain('| plan-noop | 1.23 | - | GET 8 | 4.00 | 120 | 8 | 1.000 | 1.00 | 1.234 |');
      const machine = { node: 'v20', cpus: 2, platform: 'linux' };
      await writeResults(dir, { date: '2026-11-21', machine, cases: { '2x2': c } });
      const { merged } = await writeResults(dir, {
        date: '2026-11-21',
        machine,
        cases: { '3x3': { ...c, projects: 3, alerts: 3 } },
      });
      expect(Object.keys(merged.cases)).toEqual(['2x2', '3x3']);
      expect(await readFile(join(dir, '2026-11-21.md'), 'utf8')).toContain('### 3 projects x 3 alert configs');
      // A run with added latency is a case of its own: the official figures of its size stay.
      const slow: CaseResult = { ...c, latencyMs: 10 };
      expect(caseKey(slow)).toBe('2x2@10ms');
      expect(caseKey(c)).toBe('2x2');
      const after = await writeResults(dir, { date: '2026-11-21', machine, cases: { [caseKey(slow)]: slow } });
      expect(Object.keys(after.merged.cases)).toEqual(['2x2', '3x3', '2x2@10ms']);
      expect(after.merged.cases['2x2']?.latencyMs).toBeUndefined();
      const md = await readFile(join(dir, '2026-11-21.md'), 'utf8');
      expect(md.match(/the emulator waited 10 ms before answering each API request/g)).toHaveLength(1);
      expect(md).toContain('### 2 projects x 2 alert configs, 10 ms server latency (concurrency 8,');
      expect(renderCaseTable(c)).not.toContain('Server latency added');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('bench flags', () => {
  it.each([
    [[], { projects: 200, alerts: 25, scaling: false, quick: false, concurrency: 8 }],
    [['--projects', '1000', '--alerts=20'], { projects: 1000, alerts: 20 }],
    [['--scaling'], { scaling: true, alerts: 20 }],
    [['--scaling', '--alerts', '25'], { scaling: true, alerts: 25 }],
    [['--quick', '--out', '/tmp/x', '--no-cold-start'], { quick: true, out: '/tmp/x', coldStart: false }],
    [['--repeat', '5'], { repeat: 5 }],
    [[], { repeat: 1, latencyMs: 0 }],
    [['--latency-ms', '10'], { latencyMs: 10 }],
    [['--latency-ms=0'], { latencyMs: 0 }],
  ] as const)('parses %j', (argv, expected) => {
    expect(parseBenchArgs(argv)).toMatchObject(expected);
  });

  it.each([
    [['--projects', '0'], '--projects must be between 1 and 100000, got 0'],
    [['--alerts', 'ten'], '--alerts needs a whole number, got ten'],
    [['--out'], '--out needs a value'],
    [['--quick', '--scaling'], '--quick and --scaling cannot be combined'],
    [['--fast'], 'unknown option --fast (see --help)'],
    [['--repeat', '0'], '--repeat must be between 1 and 25, got 0'],
    [['--latency-ms', '-1'], '--latency-ms needs a whole number, got -1'],
    [['--latency-ms', '10001'], '--latency-ms must be between 0 and 10000, got 10001'],
    [['--latency-ms', '5', '--scaling'], '--latency-ms and --scaling cannot be combined'],
  ] as const)('refuses %j', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
  });
});

describe('A/B flags', () => {
  it('parses the trees and defaults', () => {
    expect(parseAbArgs(['--a', '/x', '--b', '/y'])).toEqual({
      treeA: '/x',
      treeB: '/y',
      projects: 200,
      alerts: 25,
      runs: 7,
      phase: 'plan-noop',
    });
    expect(
      parseAbArgs(['--b', 'y', '--a', 'x', '--runs', '3', '--phase', 'archive', '--projects', '10']),
    ).toMatchObject({ treeA: 'x', treeB: 'y', runs: 3, phase: 'archive', projects: 10 });
  });

  it.each([
    [['--a', 'x'], 'usage: ab-compare.ts --a TREE --b TREE [options]'],
    [['--a', '--b', 'y'], '--a needs a value'],
    [['--a', 'x', '--b', 'y', '--runs', '0'], '--runs must be a whole number from 1 to 50, got 0'],
    [['--a', 'x', '--b', 'y', '--phase', 'apply-drift'], '--phase must be plan-noop or archive, got apply-drift'],
  ] as const)('refuses %j', (argv, message) => {
    expect(() => parseAbArgs(argv)).toThrow(message);
  });
});

describe('bench helpers', () => {
  it.each([
    [
      'emulator listening on http://127.0.0.1:41234/api/public/v1.0\n',
      { port: 41234, origin: 'http://127.0.0.1:41234' },
    ],
    [
      'starting...\nURL: https://127.0.0.1:8443/api/public/v1.0 (admin on)',
      { port: 8443, origin: 'https://127.0.0.1:8443' },
    ],
  ])('finds the base URL in %j', (output, expected) => {
    expect(parseEmulatorUrl(output)).toEqual({ ...expected, url: `${expected.origin}/api/public/v1.0` });
  });

  it('reports the median pair of a repeated phase, with every overhead in its notes', () => {
    const pair = (overhead: number) =>
      ({ phase: 'plan-noop', wallMs: overhead * 1000, bareMs: 1000, overhead, notes: ['n'] }) as unknown as PhaseResult;
    const median = medianPair([pair(1.9), pair(1.6), pair(2.4), pair(1.7), pair(1.8)]);
    expect(median.overhead).toBe(1.8);
    expect(median.repeats?.map((r) => r.overhead)).toEqual([1.9, 1.6, 2.4, 1.7, 1.8]);
    expect(median.notes).toEqual([
      'n',
      'overhead of 5 reconcile/bare pairs, in run order: 1.90, 1.60, 2.40, 1.70, 1.80 (median reported)',
    ]);
    expect(medianPair([pair(2), pair(1)]).overhead).toBe(1);
    expect(medianPair([pair(3)])).toEqual(pair(3));
  });

  it('finds no URL before the emulator printed one', () => {
    expect(parseEmulatorUrl('loading seed')).toBeNull();
  });

  it('lists the routes where requests differ from the minimum', () => {
    expect(routeDifferences({ 'GET /a': 3, 'POST /b': 2 }, { 'GET /a': 2, 'POST /b': 2, 'GET /c': 1 })).toEqual([
      'GET /a: 3 (minimum 2)',
      'GET /c: 0 (minimum 1)',
    ]);
  });

  it.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[], 0],
  ])('median(%j) = %d', (values, m) => {
    expect(median(values)).toBe(m);
  });

  it('names the run stage the heap peaked in', () => {
    const stages = { load: 1000, state: 10, plan: 500, total: 1600 };
    expect(describePeak({ atMs: 700, rssMb: 240.2, heapMb: 150.4 }, stages)).toBe(
      'peak RSS 240 MB; heap peaked at 150 MB 0.70 s in, during load (load 1.00 s, state 0.01 s, plan 0.50 s)',
    );
    expect(describePeak({ atMs: 1600, rssMb: 90, heapMb: 20 }, stages)).toContain('after the last stage');
  });

  it('sums self and inclusive time of a CPU profile', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0 });
    const summary = summariseProfile({
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2] },
        { id: 2, callFrame: frame('load', 'file:///work/main/lambdas/core/desired/load.ts'), children: [3] },
        { id: 3, callFrame: frame('parse', 'file:///work/main/node_modules/yaml/dist/index.js') },
      ],
      samples: [3, 3, 2, 1],
      timeDeltas: [1000, 1000, 1000, 1000],
    });
    expect(summary.total).toBe(4);
    expect(summary.self[0]).toEqual({ name: 'parse node_modules/yaml/dist/index.js:0:0', ms: 2, share: 0.5 });
    expect(summary.inclusive).toEqual([{ name: 'load lambdas/core/desired/load.ts:0:0', ms: 3, share: 0.75 }]);
  });
});

describe('a repeated drift apply', () => {
  it('injects the drift afresh before each pair: every pair finds and fixes it, at the minimum number of requests', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'bench-repeat-'));
    try {
      const result = await runCase({
        projects: 2,
        alerts: 3,
        concurrency: 4,
        workDir,
        phases: ['apply-initial', 'apply-drift'],
        repeat: 3,
      });
      const drift = result.phases.find((p) => p.phase === 'apply-drift');
      const drifted = selectDrift(buildWorld({ projects: 2, alerts: 3 })).targets.length;
      expect(drifted).toBeGreaterThan(0);
      // Every pair's apply re-enabled exactly the drifted configs and asked nothing beyond the minimum.
      expect(drift?.repeats?.map((r) => [r.planned?.enable, r.ratioToMinimum])).toEqual([
        [drifted, 1],
        [drifted, 1],
        [drifted, 1],
      ]);
      expect(drift?.notes.filter((n) => /expected|problem|failed/i.test(n))).toEqual([]);
      // The first apply is never repeated: it creates everything once.
      expect(result.phases.find((p) => p.phase === 'apply-initial')?.repeats).toBeUndefined();
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }, 60_000);
});
