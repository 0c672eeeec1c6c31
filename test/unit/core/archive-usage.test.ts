// Scenario: the archive writes the same bytes and keys while the manifest, the physical hosts and each project's writes overlap the assignment reads.
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
  /** Resolved before any assignment file may be written (default: at once). */
  writesMayStart: Promise<void> = Promise.resolve();
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
      if (key.includes('/assignments-')) await this.writesMayStart;
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
  it('writes the physical hosts and each project as indented JSON with a final newline, keys sorted', async () => {
    const f = new Fakes();
    const [a, b] = ids(2) as [string, string];
    const result = await archiveUsage(f.api, f.archive, [b, a], NOW);
    expect(result).toEqual({
      month: '2026-03',
      keys: [
        `usage/2026-03/assignments-${a}.json`,
        `usage/2026-03/assignments-${b}.json`,
        'usage/2026-03/physical-hosts.json',
      ],
      errors: [],
    });
    const fetchedAt = '2026-03-17T08:09:10.123Z';
    expect(f.objects.get('usage/2026-03/physical-hosts.json')).toEqual({
      body: `${JSON.stringify({ fetchedAt, results: HOSTS }, null, 2)}\n`,
      contentType: 'application/json',
    });
    const value = { groupId: a, startDate: '2026-03-01', endDate: '2026-03-17', fetchedAt, results: assignmentsOf(a) };
    expect(f.objects.get(`usage/2026-03/assignments-${a}.json`)).toEqual({
      body: `${JSON.stringify(value, null, 2)}\n`,
      contentType: 'application/json',
    });
    expect(f.events).toContain(`read assignments ${a} 2026-03-01 2026-03-17`);
  });

  it('reads the projects while the physical hosts are still being listed', async () => {
    const f = new Fakes();
    await archiveUsage(f.api, f.archive, ids(3), NOW);
    const hostsAt = f.events.indexOf('read hosts');
    expect(f.events.slice(0, hostsAt).filter((e) => e.startsWith('begin assignments'))).toHaveLength(3);
  });

  it('keeps reading while writes wait, and bounds the reads handed to the client', async () => {
    const f = new Fakes();
    const n = ASSIGNMENT_READS_QUEUED * 2 + 5;
    let release: () => void = () => {};
    f.writesMayStart = new Promise((resolve) => {
      release = resolve;
    });
    const run = archiveUsage(f.api, f.archive, ids(n), NOW);
    // Every read completes although no assignment write may finish yet.
    while (f.reads('read assignments') < n) await turn();
    expect(f.reads('put usage/2026-03/assignments-')).toBe(0);
    release();
    const result = await run;
    expect(result.keys).toHaveLength(n + 1);
    expect(f.maxInFlightReads).toBe(ASSIGNMENT_READS_QUEUED);
  });

  it('reports the physical hosts first, then each project whose read or write failed, and archives the rest', async () => {
    const f = new Fakes();
    const [a, b, c] = ids(3) as [string, string, string];
    f.hostsFail = true;
    f.failRead.add(a);
    f.failPut.add(`usage/2026-03/assignments-${b}.json`);
    const result = await archiveUsage(f.api, f.archive, [a, b, c], NOW);
    expect(result.keys).toEqual([`usage/2026-03/assignments-${c}.json`]);
    expect(result.errors[0]).toBe('physical hosts: hosts down');
    expect(result.errors.slice(1).sort()).toEqual(
      [`host assignments of ${a}: read refused`, `host assignments of ${b}: disk full`].sort(),
    );
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
      keys: [`usage/2026-03/assignments-${b}.json`, 'usage/2026-03/physical-hosts.json'],
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
    expect(Object.keys(summary)).toEqual(['errors', 'usage']);
  });
});
