// Scenario: the archive writes one host assignments document per month (a failed project keeps its earlier entry) while the manifest and the physical hosts overlap the assignment reads.
import { describe, expect, it } from 'vitest';
import { runArchive } from '../../../lambdas/core/archive-run.ts';
import { ASSIGNMENT_READS_QUEUED, archiveUsage } from '../../../lambdas/core/archive-usage.ts';
import { DEFAULT_SETTINGS, type DesiredState } from '../../../lambdas/core/model.ts';
import type { ArchiveStore, OpsManagerApi } from '../../../lambdas/core/ports.ts';
import type { HostAssignment, PhysicalHost } from '../../../lambdas/opsman/types.ts';

const NOW = new Date('2026-03-17T08:09:10.123Z');
const ids = (n: number) => Array.from({ length: n }, (_, i) => `5e2211c17a3e5a48f549${String(i).padStart(4, '0')}`);
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const HOSTS: PhysicalHost[] = [{ id: 'h1', name: 'rack-1', serverType: 'PRODUCTION_SERVER', hosts: [] }];
const assignmentsOf = (groupId: string): HostAssignment[] => [
  { hostname: `${groupId}.db`, processes: [{ groupId, processType: 1 }], serverType: { name: 'PRODUCTION_SERVER' } },
];

/** Records what a run did, in order: `begin assignments <id>` (a read starts), `read hosts` (a read ends), `put <key>`... */
class Fakes {
  readonly events: string[] = [];
  readonly objects = new Map<string, { body: string; contentType: string | undefined }>();
  inFlightReads = 0;
  maxInFlightReads = 0;
  failRead = new Set<string>();
  failPut = new Set<string>();
  hostsFail = false;

  // Only the three reads the archive makes: the rest of the port would be dead code in this fake.
  readonly api = {
    getVersionManifest: async () => {
      await turn();
      this.events.push('read manifest');
      return { text: '{"updated":1}', value: { updated: 1 } };
    },
    listPhysicalHosts: async () => {
      await turn();
      this.events.push('read hosts');
      if (this.hostsFail) throw new Error('hosts down');
      return HOSTS;
    },
    listProjectHostAssignments: async (groupId: string, startDate: string, endDate: string) => {
      this.events.push(`begin assignments ${groupId}`);
      this.inFlightReads++;
      this.maxInFlightReads = Math.max(this.maxInFlightReads, this.inFlightReads);
      await turn();
      this.inFlightReads--;
      this.events.push(`read assignments ${groupId} ${startDate} ${endDate}`);
      if (this.failRead.has(groupId)) throw new Error('read refused');
      return assignmentsOf(groupId);
    },
  } as unknown as OpsManagerApi;

  readonly archive: ArchiveStore = {
    describe: () => 'memory',
    put: async (key, body, options) => {
      await turn();
      if (this.failPut.has(key)) throw new Error('disk full');
      const created = !(options?.ifAbsent && this.objects.has(key));
      if (created) this.objects.set(key, { body: String(body), contentType: options?.contentType });
      this.events.push(`put ${key}`);
      return { key, created, location: `memory:${key}` };
    },
    get: async (key) => {
      const object = this.objects.get(key);
      return object === undefined ? null : new TextEncoder().encode(object.body);
    },
  };

  reads(prefix: string): number {
    return this.events.filter((e) => e.startsWith(prefix)).length;
  }
}

describe('archiveUsage', () => {
  const KEY = 'usage/2026-03/host-assignments.json';
  const fetchedAt = '2026-03-17T08:09:10.123Z';
  const entry = (groupId: string, at = fetchedAt, endDate = '2026-03-17') => ({
    groupId,
    endDate,
    fetchedAt: at,
    results: assignmentsOf(groupId),
  });
  const stored = (f: Fakes) => JSON.parse(f.objects.get(KEY)?.body ?? 'null');

  it('writes the physical hosts and one document of every project (sorted by groupId), indented, final newline', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    const result = await archiveUsage(f.api, f.archive, [b, a], NOW);
    expect(result).toEqual({
      month: '2026-03',
      keys: [KEY, 'usage/2026-03/physical-hosts.json'],
      projects: 2,
      errors: [],
      incomplete: [],
    });
    expect(f.objects.get('usage/2026-03/physical-hosts.json')).toEqual({
      body: `${JSON.stringify({ fetchedAt, results: HOSTS }, null, 2)}\n`,
      contentType: 'application/json',
    });
    const document = {
      formatVersion: 1,
      month: '2026-03',
      startDate: '2026-03-01',
      fetchedAt,
      projects: [entry(a), entry(b)],
    };
    expect(f.objects.get(KEY)).toEqual({
      body: `${JSON.stringify(document, null, 2)}\n`,
      contentType: 'application/json',
    });
    expect(f.events).toContain(`read assignments ${a} 2026-03-01 2026-03-17`);
    // One write for all the projects.
    expect(f.reads(`put ${KEY}`)).toBe(1);
  });

  it('streams the document through putPieces when the store has it, with the same bytes', async () => {
    const f = new Fakes();
    const pieces: string[][] = [];
    const archive: ArchiveStore = {
      ...f.archive,
      putPieces: async (key, parts, options) => {
        pieces.push([...parts]);
        return f.archive.put(key, pieces.at(-1)?.join('') ?? '', options);
      },
    };
    await archiveUsage(f.api, archive, ids(3), NOW);
    expect(pieces).toHaveLength(2);
    const document = {
      formatVersion: 1,
      month: '2026-03',
      startDate: '2026-03-01',
      fetchedAt,
      projects: ids(3).map((id) => entry(id)),
    };
    expect(f.objects.get(KEY)?.body).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });

  it('reads the projects while the physical hosts are still being listed', async () => {
    const f = new Fakes();
    await archiveUsage(f.api, f.archive, ids(3), NOW);
    const hostsAt = f.events.indexOf('read hosts');
    expect(f.events.slice(0, hostsAt).filter((e) => e.startsWith('begin assignments'))).toHaveLength(3);
  });

  it('bounds the reads handed to the client', async () => {
    const f = new Fakes();
    const n = ASSIGNMENT_READS_QUEUED * 2 + 5;
    const result = await archiveUsage(f.api, f.archive, ids(n), NOW);
    expect(f.maxInFlightReads).toBe(ASSIGNMENT_READS_QUEUED);
    expect(stored(f).projects).toHaveLength(n);
    expect(result.errors).toEqual([]);
  });

  it('keeps every entry of the month it did not read again: a failed read (said so), a project no longer managed', async () => {
    const f = new Fakes();
    const [a, b, c, gone] = ids(4) as [string, string, string, string];
    const earlier = entry(a, '2026-03-16T08:00:00.000Z', '2026-03-16');
    const goneEntry = entry(gone, earlier.fetchedAt, '2026-03-16');
    f.objects.set(KEY, {
      body: JSON.stringify({
        month: '2026-03',
        startDate: '2026-03-01',
        fetchedAt: earlier.fetchedAt,
        projects: [earlier, entry(b, earlier.fetchedAt, '2026-03-16'), goneEntry],
      }),
      contentType: 'application/json',
    });
    f.failRead.add(a);
    f.failRead.add(c);
    const result = await archiveUsage(f.api, f.archive, [c, b, a], NOW);
    expect(result.errors).toEqual([
      `host assignments of ${a}: read refused (kept its entry read at 2026-03-16T08:00:00.000Z)`,
      `host assignments of ${c}: read refused`,
    ]);
    expect(stored(f).projects).toEqual([earlier, entry(b), goneEntry].sort((x, y) => (x.groupId < y.groupId ? -1 : 1)));
    expect(result.projects).toBe(3);
  });

  it('carries a stored entry over exactly as stored, with the fields a later version added to it', async () => {
    // A downgrade: the entry of a project this run does not read keeps what the newer version recorded in it.
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    const later = { ...entry(a, '2026-03-16T08:00:00.000Z', '2026-03-16'), hostCount: 1, source: { api: 'v2' } };
    f.objects.set(KEY, {
      body: JSON.stringify({
        formatVersion: 1,
        month: '2026-03',
        startDate: '2026-03-01',
        fetchedAt,
        projects: [later],
      }),
      contentType: 'application/json',
    });
    const result = await archiveUsage(f.api, f.archive, [b], NOW);
    expect(result.errors).toEqual([]);
    expect(stored(f).projects).toEqual([later, entry(b)]);
  });

  it('leaves a stored document of a newer formatVersion as it is and says which, found and supported', async () => {
    const f = new Fakes();
    const [a] = ids(1) as [string];
    const newer = JSON.stringify({ formatVersion: 2, month: '2026-03', entries: { [a]: {} } });
    f.objects.set(KEY, { body: newer, contentType: 'application/json' });
    const result = await archiveUsage(f.api, f.archive, [a], NOW);
    expect(f.objects.get(KEY)?.body).toBe(newer);
    expect(result.keys).toEqual(['usage/2026-03/physical-hosts.json']);
    expect(result.errors).toEqual([
      `host assignments: the stored ${KEY} has formatVersion 2; this version writes formatVersion 1: it was written by a newer version of opsman-gitops and is left as it is (archive with that version)`,
    ]);
  });

  it('a run limited to some projects updates their entries and keeps the others', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    await archiveUsage(f.api, f.archive, [a, b], new Date('2026-03-16T08:00:00.000Z'));
    const first = stored(f).projects as ReturnType<typeof entry>[];
    const result = await archiveUsage(f.api, f.archive, [b], NOW);
    expect(result.errors).toEqual([]);
    expect(stored(f).projects).toEqual([first[0], entry(b)]);
    expect(stored(f).fetchedAt).toBe(fetchedAt);
  });

  it('a document of another month is never carried into this one', async () => {
    const f = new Fakes();
    const [a] = ids(1) as [string];
    f.objects.set('usage/2026-03/host-assignments.json', {
      body: JSON.stringify({ month: '2026-02', startDate: '2026-02-01', fetchedAt, projects: [entry('x')] }),
      contentType: 'application/json',
    });
    const result = await archiveUsage(f.api, f.archive, [a], NOW);
    expect(stored(f).projects).toEqual([entry(a)]);
    expect(result.errors).toEqual([
      `host assignments: the stored ${KEY} is not a host assignments document of 2026-03; entries of projects not read in this run are not carried over`,
    ]);
  });

  it('carries nothing over from a stored document that is not JSON, of another month, or malformed, and says why', async () => {
    const [a, b] = ids(2) as [string, string];
    const cases: [string, RegExp][] = [
      ['{not json', /is not valid JSON/],
      [JSON.stringify({ month: '2026-02', projects: [entry(a)] }), /not a host assignments document of 2026-03/],
      [JSON.stringify({ month: '2026-03', projects: {} }), /not a host assignments document of 2026-03/],
      [JSON.stringify({ formatVersion: '2', month: '2026-03', projects: [] }), /not a host assignments document/],
      [JSON.stringify({ month: '2026-03', projects: [{ groupId: a, results: 'x' }] }), /^$/],
    ];
    for (const [body, problem] of cases) {
      const f = new Fakes();
      f.objects.set(KEY, { body, contentType: 'application/json' });
      f.failRead.add(a);
      const result = await archiveUsage(f.api, f.archive, [a, b], NOW);
      expect(result.errors[0]).toBe(`host assignments of ${a}: read refused`);
      expect(result.errors[1] ?? '').toMatch(problem);
      expect(stored(f).projects).toEqual([entry(b)]);
    }
  });

  it('names a project whose read failed by its metadata.name too, when it is given (escaped for a terminal)', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    f.failRead.add(a);
    f.failRead.add(b);
    const names = new Map([
      [a, 'payments-prod'],
      [b, 'odd\u001b[31m'],
    ]);
    const result = await archiveUsage(f.api, f.archive, [a, b], NOW, names);
    expect(result.errors.slice(0, 2)).toEqual([
      `host assignments of payments-prod (${a}): read refused`,
      `host assignments of odd\\u001b[31m (${b}): read refused`,
    ]);
  });

  it('leaves the stored document as it was when every read fails', async () => {
    const f = new Fakes();
    const [a] = ids(1) as [string];
    f.objects.set(KEY, { body: 'yesterday', contentType: 'application/json' });
    f.failRead.add(a);
    const result = await archiveUsage(f.api, f.archive, [a], NOW);
    expect(result.keys).toEqual(['usage/2026-03/physical-hosts.json']);
    expect(f.objects.get(KEY)?.body).toBe('yesterday');
    expect(result.errors).toEqual([
      `host assignments of ${a}: read refused`,
      `host assignments: every project's read failed; ${KEY} is left as it was`,
    ]);
  });

  it('reports the physical hosts first, then the projects, then a failed write of the document', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    f.hostsFail = true;
    f.failRead.add(a);
    f.failPut.add(KEY);
    const result = await archiveUsage(f.api, f.archive, [a, b], NOW);
    expect(result.keys).toEqual([]);
    expect(result.errors).toEqual([
      'physical hosts: hosts down',
      `host assignments of ${a}: read refused`,
      'host assignments: disk full',
    ]);
  });
});

describe('runArchive', () => {
  const desired = (projects: string[]): DesiredState => ({
    projects: projects.map((projectId) => ({
      name: projectId,
      projectId,
      alertConfigs: [],
      prune: false,
      protect: [],
      release: [],
      source: { file: 'p.yaml', line: 1, column: 1 },
    })),
    organizations: [],
    settings: { ...DEFAULT_SETTINGS, archive: { versionManifest: true, usage: true } },
    files: [],
    digest: 'd',
  });
  const clock = { now: () => NOW, sleep: async () => {} };

  it('archives the manifest alongside the usage and reports manifest, then usage', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    const summary = await runArchive(desired([a, b]), [b], { api: f.api, archive: f.archive, clock });
    expect(f.events.indexOf(`begin assignments ${b}`)).toBeLessThan(f.events.indexOf('read manifest'));
    expect(f.reads(`read assignments ${a}`)).toBe(0);
    expect(Object.keys(summary)).toEqual(['errors', 'manifest', 'usage']);
    expect(summary.errors).toEqual([]);
    expect(summary.manifest?.changed).toBe(true);
    expect(summary.usage).toEqual({
      month: '2026-03',
      keys: ['usage/2026-03/host-assignments.json', 'usage/2026-03/physical-hosts.json'],
      projects: 1,
    });
    expect(f.objects.get('manifests/latest.json')?.body).toContain('"fetchedAt": "2026-03-17T08:09:10.123Z"');
  });

  it('lists a manifest failure before the usage failures', async () => {
    const f = new Fakes();
    f.hostsFail = true;
    const api = {
      ...f.api,
      getVersionManifest: async () => {
        await turn();
        throw new Error('manifest gone');
      },
    } as unknown as OpsManagerApi;
    const summary = await runArchive(desired(ids(1)), undefined, { api, archive: f.archive, clock });
    expect(summary.errors).toEqual(['version manifest: manifest gone', 'physical hosts: hosts down']);
    expect(Object.keys(summary)).toEqual(['errors', 'usage', 'incomplete']);
    // Named where each failure arose, never recognised from an error's wording.
    expect(summary.incomplete).toEqual(['version manifest', 'usage 2026-03: physical hosts']);
  });
});

describe('runArchive retryable', () => {
  it('a failure with no error of the API or the store behind it (an unusable stored index) is not retryable', async () => {
    const f = new Fakes();
    // An index a newer version wrote: the run refuses it, and a retry meets the same document.
    f.objects.set('manifests/index.json', { body: '{"formatVersion": 9}', contentType: 'application/json' });
    const desired = {
      projects: [],
      organizations: [],
      settings: { ...DEFAULT_SETTINGS, archive: { versionManifest: true, usage: false } },
      files: [],
      digest: 'd',
    } as DesiredState;
    const summary = await runArchive(desired, undefined, {
      api: f.api,
      archive: f.archive,
      clock: { now: () => NOW, sleep: async () => {} },
      isRetryable: () => true,
    });
    expect(summary.errors).toEqual([
      expect.stringMatching(/^version manifest: the stored manifests\/index.json has formatVersion 9/),
    ]);
    expect(summary.retryable).toBe(false);
  });
});

describe('archiveUsage closes the previous month', () => {
  const MARCH = 'usage/2026-03/host-assignments.json';
  const APRIL = 'usage/2026-04/host-assignments.json';
  const marchEntry = (groupId: string, fetchedAt: string, endDate: string) => ({
    groupId,
    endDate,
    fetchedAt,
    results: assignmentsOf(groupId),
  });
  const storeMarch = (f: Fakes, entries: ReturnType<typeof marchEntry>[]) =>
    f.objects.set(MARCH, {
      body: JSON.stringify({ month: '2026-03', startDate: '2026-03-01', fetchedAt: 'x', projects: entries }),
      contentType: 'application/json',
    });
  const doc = (f: Fakes, key: string) => JSON.parse(f.objects.get(key)?.body ?? 'null');

  it('a run just after midnight UTC on the 1st reads the whole previous month again for entries read before it ended', async () => {
    const f = new Fakes();
    const [a, b, c] = ids(3) as [string, string, string];
    // The last daily run of March was at 00:05 on the 31st: the 31st was not over.
    storeMarch(f, [
      marchEntry(a, '2026-03-31T00:05:00.000Z', '2026-03-31'),
      marchEntry(b, '2026-03-29T00:05:00.000Z', '2026-03-29'),
    ]);
    const now = new Date('2026-04-01T00:05:00.000Z');
    const result = await archiveUsage(f.api, f.archive, [a, b, c], now);
    expect(result.errors).toEqual([]);
    expect(f.events).toContain(`read assignments ${a} 2026-03-01 2026-03-31`);
    expect(f.events).toContain(`read assignments ${b} 2026-03-01 2026-03-31`);
    // c has no March entry: it is read for the closed month too (its usage of March is March's).
    expect(f.events).toContain(`read assignments ${c} 2026-03-01 2026-03-31`);
    expect(f.events).toContain(`read assignments ${a} 2026-04-01 2026-04-01`);
    const march = doc(f, MARCH);
    expect(march.projects.map((p: { endDate: string; fetchedAt: string }) => [p.endDate, p.fetchedAt])).toEqual([
      ['2026-03-31', now.toISOString()],
      ['2026-03-31', now.toISOString()],
      ['2026-03-31', now.toISOString()],
    ]);
    expect(doc(f, APRIL).projects).toHaveLength(3);
    expect(result.keys).toEqual([MARCH, APRIL, 'usage/2026-04/physical-hosts.json']);
  });

  it('a closed month is not read again, and no previous document means nothing to close', async () => {
    const f = new Fakes();
    const [a] = ids(1) as [string];
    storeMarch(f, [marchEntry(a, '2026-04-01T00:05:00.000Z', '2026-03-31')]);
    const before = f.objects.get(MARCH)?.body;
    await archiveUsage(f.api, f.archive, [a], new Date('2026-04-02T00:05:00.000Z'));
    expect(f.events.filter((e) => e.includes('2026-03-01'))).toEqual([]);
    expect(f.objects.get(MARCH)?.body).toBe(before);

    const g = new Fakes();
    await archiveUsage(g.api, g.archive, [a], new Date('2026-04-01T00:05:00.000Z'));
    expect(g.events.filter((e) => e.includes('2026-03-01'))).toEqual([]);
    expect(g.objects.has(MARCH)).toBe(false);
  });

  it('a failed read of the closing month keeps its entry and says which month', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    const open = marchEntry(a, '2026-03-31T00:05:00.000Z', '2026-03-31');
    storeMarch(f, [open, marchEntry(b, '2026-03-31T00:05:00.000Z', '2026-03-31')]);
    f.failRead.add(a);
    const result = await archiveUsage(f.api, f.archive, [a, b], new Date('2026-04-01T00:05:00.000Z'));
    expect(doc(f, MARCH).projects[0]).toEqual(open);
    expect(result.errors).toEqual([
      `host assignments of ${a}: read refused`,
      `closing 2026-03: host assignments of ${a}: read refused (kept its entry read at 2026-03-31T00:05:00.000Z)`,
    ]);
    expect(result.incomplete).toEqual([
      'usage 2026-04: host assignments',
      'usage 2026-03: host assignments (closing the month)',
    ]);
  });

  it('January closes December of the year before', async () => {
    const f = new Fakes();
    const [a] = ids(1) as [string];
    f.objects.set('usage/2025-12/host-assignments.json', {
      body: JSON.stringify({
        month: '2025-12',
        startDate: '2025-12-01',
        fetchedAt: 'x',
        projects: [marchEntry(a, '2025-12-31T12:00:00.000Z', '2025-12-31')],
      }),
      contentType: 'application/json',
    });
    await archiveUsage(f.api, f.archive, [a], new Date('2026-01-01T00:00:00.000Z'));
    expect(f.events).toContain(`read assignments ${a} 2025-12-01 2025-12-31`);
    expect(f.events).toContain(`read assignments ${a} 2026-01-01 2026-01-01`);
  });
});
