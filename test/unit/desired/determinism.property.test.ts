// Scenario: the same desired-state files, listed and read back in any order, load to the same state and digest; a reload, a load through the cache (content key and content tags) and a cold load all agree.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EVENT_TYPE_NAMES, MATCHER_FIELDS, MATCHER_OPERATORS, UNITS } from '../../../lambdas/core/desired/enums.ts';
import { type LoadResult, loadDesiredState, loadDesiredStateCached } from '../../../lambdas/core/desired/index.ts';
import type { DesiredFileRef, DesiredStateSource } from '../../../lambdas/core/ports.ts';
import { MapCache } from './cache-fakes.ts';
import { MemorySource } from './memory-source.ts';

/** A source over fixed files that lists them in `order` and answers reads after the given delays (in ms). */
class ShuffledSource implements DesiredStateSource {
  private readonly inner: MemorySource;
  constructor(
    files: Record<string, string>,
    private readonly order: number[],
    private readonly delays: number[],
    tagged: boolean,
  ) {
    this.inner = new MemorySource(files, tagged ? (_path, bytes) => `${bytes.length}:${hashOf(bytes)}` : undefined);
  }
  describe(): string {
    return 'shuffled:/';
  }
  async list(): Promise<DesiredFileRef[]> {
    // A Fisher-Yates shuffle driven by the generated numbers: any permutation of the listing can come out.
    const refs = await this.inner.list();
    for (let i = refs.length - 1; i > 0; i--) {
      const j = (this.order[i % Math.max(1, this.order.length)] ?? 0) % (i + 1);
      [refs[i], refs[j]] = [refs[j] as DesiredFileRef, refs[i] as DesiredFileRef];
    }
    return refs;
  }
  async read(path: string): Promise<{ bytes: Uint8Array }> {
    const delay = this.delays[path.length % Math.max(1, this.delays.length)] ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return this.inner.read(path);
  }
  async readIfPresent(path: string): Promise<{ bytes: Uint8Array } | undefined> {
    return this.inner.readIfPresent(path);
  }
}

function hashOf(bytes: Uint8Array): number {
  let h = 0;
  for (const b of bytes) h = (h * 31 + b) | 0;
  return h >>> 0;
}

const hex24 = fc.stringMatching(/^[0-9a-f]{24}$/);
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
/** Text the schema takes (any non-empty string), unicode and odd whitespace included. */
const text = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9#@._+-]{1,12}$/),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
  fc.constantFrom(' x', 'x ', 'a\u00a0b', '\u2028', '0777', '1e3', 'true', 'null', '- x', '#c', '"q"', 'é'),
);
/** Numbers YAML writes and JSON keeps: integers, fractions, large and tiny values. */
const number = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.constantFrom(0.1, 1e21, 5e-324, 2 ** 53 + 2),
);

const notification = fc.oneof(
  fc
    .tuple(text, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 5, max: 1440 }))
    .map(([channelName, delayMin, intervalMin]) => ({
      typeName: 'SLACK',
      apiToken: { secretRef: 'om/slack#token' },
      channelName,
      delayMin,
      intervalMin,
    })),
  text.map((mobileNumber) => ({ typeName: 'SMS', mobileNumber })),
  fc
    .subarray(['GROUP_OWNER', 'GROUP_READ_ONLY', 'GROUP_DATA_ACCESS_ADMIN'], { minLength: 1 })
    .map((roles) => ({ typeName: 'GROUP', roles, emailEnabled: true })),
  fc.constant({ typeName: 'PAGER_DUTY', serviceKey: { secretRef: 'om/pd#key' } }),
);

const alertConfig = (key: string) =>
  fc
    .record({
      eventTypeName: fc.constantFrom(...EVENT_TYPE_NAMES),
      enabled: fc.option(fc.boolean(), { nil: undefined }),
      matchers: fc.array(
        fc.record({
          fieldName: fc.constantFrom(...MATCHER_FIELDS.filter((f) => f !== 'TYPE_NAME')),
          operator: fc.constantFrom(...MATCHER_OPERATORS),
          value: text,
        }),
        { maxLength: 2 },
      ),
      notifications: fc.array(notification, { minLength: 1, maxLength: 2 }),
      threshold: number,
      units: fc.constantFrom(...UNITS),
    })
    .map(({ threshold, units, enabled, ...config }) => ({
      key,
      ...config,
      ...(enabled === undefined ? {} : { enabled }),
      ...(config.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD'
        ? { metricThreshold: { metricName: 'CONNECTIONS', operator: 'GREATER_THAN', threshold, units } }
        : {}),
      ...(['TOO_FEW_HEALTHY_MEMBERS', 'TOO_MANY_UNHEALTHY_MEMBERS'].includes(config.eventTypeName)
        ? { threshold: { operator: 'LESS_THAN', threshold, units } }
        : {}),
    }));

const configs = fc.uniqueArray(name, { maxLength: 3 }).chain((keys) => fc.tuple(...keys.map((k) => alertConfig(k))));

/** 1-4 projects with distinct names and ids, plus (sometimes) a template they use, spread over 1-4 files. */
const world = fc
  .record({
    projects: fc.uniqueArray(fc.tuple(name, hex24), {
      minLength: 1,
      maxLength: 4,
      selector: ([n]) => n,
    }),
    template: fc.option(fc.uniqueArray(name, { minLength: 1, maxLength: 2 }), { nil: undefined }),
    files: fc.integer({ min: 1, max: 4 }),
  })
  .filter(({ projects }) => new Set(projects.map(([, id]) => id)).size === projects.length)
  .chain(({ projects, template, files }) =>
    fc.record({
      projects: fc.tuple(
        ...projects.map(([n, id]) => fc.record({ name: fc.constant(n), id: fc.constant(id), configs: configs })),
      ),
      template: template ? fc.tuple(...template.map((k) => alertConfig(`t-${k}`))) : fc.constant(undefined),
      placement: fc.array(fc.nat(files - 1), { minLength: projects.length + 1, maxLength: projects.length + 1 }),
    }),
  );

type World = typeof world extends fc.Arbitrary<infer T> ? T : never;

/** The world's documents as YAML files (documents sharing a file are joined with `---`). */
function filesOf(w: World): Record<string, string> {
  const docs: { file: number; text: string }[] = [];
  if (w.template) {
    docs.push({
      file: w.placement[0] ?? 0,
      text: stringify({
        apiVersion: 'opsman-gitops/v1',
        kind: 'AlertTemplate',
        metadata: { name: 'base' },
        spec: { alertConfigs: w.template },
      }),
    });
  }
  w.projects.forEach((p, i) => {
    docs.push({
      file: w.placement[i + 1] ?? 0,
      text: stringify({
        apiVersion: 'opsman-gitops/v1',
        kind: 'Project',
        metadata: { name: p.name, projectId: p.id },
        spec: { ...(w.template ? { alertTemplates: ['base'] } : {}), alertConfigs: p.configs, prune: i % 2 === 0 },
      }),
    });
  });
  const files: Record<string, string> = {};
  for (const d of docs) {
    const path = d.file === 0 ? 'projects.yaml' : `dir${d.file}/f${d.file}.yml`;
    files[path] = files[path] === undefined ? d.text : `${files[path]}---\n${d.text}`;
  }
  return files;
}

function stateOf(result: LoadResult) {
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.file}:${i.line}: ${i.message}`).join('\n'));
  return result;
}

const permutation = fc.array(fc.nat(20), { minLength: 0, maxLength: 6 });
const delays = fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 4 });

describe('property: loading is deterministic', () => {
  it('any listing order, read order, reload and the cache give the same state, summary and digest', async () => {
    await fc.assert(
      fc.asyncProperty(world, permutation, permutation, delays, async (w, orderA, orderB, readDelays) => {
        const files = filesOf(w);
        const baseline = stateOf(await loadDesiredState(new MemorySource(files)));
        expect(baseline.state.digest).toMatch(/^[0-9a-f]{64}$/);
        for (const [order, tagged] of [
          [orderA, false],
          [orderB, true],
        ] as const) {
          const source = () => new ShuffledSource(files, order, readDelays, tagged);
          const cold = stateOf(await loadDesiredState(source()));
          expect(cold.state).toStrictEqual(baseline.state);
          expect(cold.summary).toBe(baseline.summary);
          const cache = new MapCache();
          const first = await loadDesiredStateCached(source(), {}, cache);
          const second = await loadDesiredStateCached(source(), {}, cache);
          expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
          for (const warm of [first.result, second.result]) {
            const loaded = stateOf(warm);
            expect(loaded.state).toStrictEqual(baseline.state);
            expect(loaded.summary).toBe(baseline.summary);
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
