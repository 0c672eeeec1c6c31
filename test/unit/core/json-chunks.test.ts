// Scenario: JSON written piece by piece (run reports, state) is byte-identical to JSON.stringify at every indent and split depth, streamed or not.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FsArchiveStore } from '../../../lambdas/adapters/local/archive-fs.ts';
import { encodeChunks, jsonChunks, PIECE_CHARS, utf8Length } from '../../../lambdas/core/json-chunks.ts';
import { type Change, PLAN_FORMAT_VERSION, type RunReport } from '../../../lambdas/core/model.ts';
import { COMPACT_REPORT_ENTRIES, reportBytes, storedReport, writeReport } from '../../../lambdas/core/report.ts';

function report(changes: number): RunReport {
  const target = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
  const list: Change[] = Array.from({ length: changes }, (_, i) => ({
    target,
    kind: 'alertConfig',
    key: `k-é-${i}`,
    action: 'create',
    after: { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] },
    fields: [],
    reason: 'not in Ops Manager',
  }));
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    runId: 'run-1',
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:01.000Z',
    mode: 'apply',
    plan: {
      formatVersion: PLAN_FORMAT_VERSION,
      runId: 'run-1',
      createdAt: '2026-03-01T10:00:00.000Z',
      mode: 'apply',
      desired: { digest: 'd', files: [] },
      liveDigests: {},
      changes: list,
      failures: [],
    },
    results: list.map((change) => ({ change, status: 'applied', durationMs: 1, id: 'x' })),
    failures: [],
    summary: {
      planned: {
        blocked: 0,
        drift: 0,
        adopt: 0,
        create: changes,
        update: 0,
        enable: 0,
        disable: 0,
        delete: 0,
        release: 0,
        noop: 0,
      },
      applied: changes,
      failed: 0,
      drift: 0,
      blocked: 0,
      targetsFailed: 0,
    },
    apiCalls: { total: 0, byEndpoint: {} },
    durationsMs: { total: 1 },
  };
}

const odd = {
  a: [1, undefined, () => 1, Symbol('s')],
  b: undefined,
  c: { d: null, e: new Date(0), f: [[], {}, { z: undefined }] },
  '\u2028k"': 'line\nbreak',
};

describe('jsonChunks', () => {
  it('concatenates to JSON.stringify for any JSON value, indent and split depth', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        (v, indent, split) => {
          for (const value of [v, { wrapped: [v, v], odd }]) {
            const want = JSON.stringify(value, null, indent);
            expect([...jsonChunks(value, { indent, splitDepth: split })].join('')).toBe(want);
            expect(Buffer.from(encodeChunks(jsonChunks(value, { indent, splitDepth: split }), '\n'))).toEqual(
              Buffer.from(`${want}\n`),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['ascii', 'abc'],
    ['two-byte', 'é'],
    ['three-byte', '\u2028'],
    ['pair', '😀'],
    ['lone high surrogate', 'a\ud800b'],
    ['lone low surrogate', '\udc00'],
  ])('counts UTF-8 bytes like TextEncoder: %s', (_name, text) => {
    expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
  });
});

describe('piece sizes', () => {
  it.each([
    ['compact', 0],
    ['indented', 2],
  ])('%s: a large document comes in a few pieces of about PIECE_CHARS, never a whole-document string', (_n, indent) => {
    const value = { items: Array.from({ length: 20_000 }, (_, i) => ({ key: `k-${i}`, after: { n: i, s: 'é' } })) };
    const pieces = [...jsonChunks(value, { indent, splitDepth: 3 })];
    const want = JSON.stringify(value, null, indent);
    expect(pieces.join('')).toBe(want);
    expect(pieces.length).toBeLessThan(want.length / PIECE_CHARS + 2);
    // Each piece stops at the first member boundary past PIECE_CHARS: one member (under 100 chars here) beyond it.
    for (const piece of pieces) expect(piece.length).toBeLessThan(PIECE_CHARS + 100);
  });
});

describe('stored run reports', () => {
  it.each([
    ['small: indented as before', 3, 2],
    ['large: compact', COMPACT_REPORT_ENTRIES, 0],
  ])('%s, the same bytes streamed to files as encoded', async (_name, changes, indent) => {
    const r = report(changes);
    const want = `${JSON.stringify(r, null, indent)}\n`;
    expect(new TextDecoder().decode(reportBytes(r))).toBe(want);
    const dir = await mkdtemp(join(tmpdir(), 'report-pieces-'));
    try {
      const location = await writeReport(new FsArchiveStore(dir), r);
      expect(location).toBe(join(dir, 'reports', '2026-03-01', 'run-1.json'));
      expect(await readFile(location, 'utf8')).toBe(want);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('in-sync changes in stored reports', () => {
  const other = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de4', name: 'payments-dev' };
  const noop = (target: Change['target'], key: string): Change => ({
    target,
    kind: 'alertConfig',
    key,
    id: `id-${key}`,
    action: 'noop',
    fields: [],
    reason: 'in sync',
  });

  it('are counted per target instead of listed; every other change, a noop with fields included, is kept in order', async () => {
    const r = report(2);
    const [first, second] = r.plan.changes as [Change, Change];
    const target = first.target;
    const unenforced: Change = {
      target,
      kind: 'auditLogRotation',
      key: 'auditLogRotation',
      action: 'noop',
      fields: [{ path: 'numTotal', before: 10, after: 20 }],
      reason: 'reported, not enforced',
    };
    r.plan.changes = [noop(target, 'a'), first, noop(other, 'b'), unenforced, noop(target, 'c'), second];
    const before = JSON.stringify(r);
    const stored = storedReport(r);
    expect(stored.plan.changes).toEqual([first, unenforced, second]);
    expect(stored.plan.inSync).toEqual({ [`project:${target.id}`]: 2, [`project:${other.id}`]: 1 });
    expect(JSON.stringify(r)).toBe(before);
    const written = JSON.parse(new TextDecoder().decode(reportBytes(r))) as ReturnType<typeof storedReport>;
    expect(written.plan.changes.map((c) => c.key)).toEqual([first.key, 'auditLogRotation', second.key]);
    expect(written.plan.inSync).toEqual(stored.plan.inSync);
    expect(written.results).toHaveLength(2);
  });

  it('a report without plain in-sync changes is stored as it is (no inSync member)', () => {
    const r = report(3);
    expect(storedReport(r)).toBe(r);
    expect(new TextDecoder().decode(reportBytes(r))).not.toContain('inSync');
  });
});
