// Scenario: a run compares the files it read with the upload's snapshot manifest: a whole upload passes, a torn one
// (new file next to an old one, a file missing, a manifest still the old one) stops with DESIRED_STATE_IN_TRANSIT
// before the lease and any Ops Manager request, on a desired-state cache hit as on a miss; a malformed manifest is
// refused; without a manifest the policy decides.
import { describe, expect, it } from 'vitest';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import { checkSnapshot, type SnapshotPolicy } from '../../../lambdas/core/desired/snapshot-check.ts';
import {
  buildSnapshotManifest,
  SNAPSHOT_FILE,
  snapshotManifestText,
} from '../../../lambdas/core/desired/snapshot-manifest.ts';
import { DesiredStateInvalidError } from '../../../lambdas/core/errors.ts';
import type { DesiredState } from '../../../lambdas/core/model.ts';
import { runReconcile } from '../../../lambdas/core/run.ts';
import type { RunDependencies } from '../../../lambdas/core/run-types.ts';
import { FakeWorld } from '../../helpers/fake-opsman-api.ts';
import { projectYaml, ReconcileHarness, settingsYaml } from '../../helpers/reconcile-world.ts';
import { EXAMPLE_ROOT, filesOf, MapCache } from './cache-fakes.ts';
import { MemorySource } from './memory-source.ts';

const enc = (s: string) => new TextEncoder().encode(s);

/** The manifest text of an upload of `files` (every file, YAML or not). */
function manifestOf(files: Record<string, string>): string {
  return snapshotManifestText(
    buildSnapshotManifest(Object.entries(files).map(([path, text]) => ({ path, bytes: enc(text) }))),
  );
}

async function stateOf(source: MemorySource): Promise<DesiredState> {
  const loaded = await loadDesiredState(source);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues.slice(0, 3)));
  return loaded.state;
}

/** What a run passes to the check for a loaded state (its YAML files and its pinned manifest). */
function readOf(state: DesiredState) {
  const pin = state.settings.versionManifest?.pin;
  return { files: state.files, ...(pin ? { pin: { path: pin.path, sha256: pin.sha256 } } : {}) };
}

async function check(files: Record<string, string>, policy: SnapshotPolicy = 'optional') {
  const source = new MemorySource(files);
  return checkSnapshot(source, readOf(await stateOf(source)), policy);
}

const EXAMPLE = filesOf(EXAMPLE_ROOT);
const EDITED_PAYMENTS = `${EXAMPLE['projects/payments.yaml']}# edited\n`;

describe('checkSnapshot against the example desired state (YAML files and a pinned manifest)', () => {
  it('an upload read whole matches: every YAML file and the pinned manifest compared, other files ignored', async () => {
    // The README and the schema are in the upload and the manifest, but not the loader's concern.
    const outcome = await check({ ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf(EXAMPLE) });
    const yaml = Object.keys(EXAMPLE).filter((p) => p.endsWith('.yaml')).length;
    expect(outcome).toEqual({ manifest: 'matched', files: yaml + 1 });
  });

  it.each([['optional' as const], ['required' as const]])('a manifest present is checked (%s)', async (policy) => {
    const manifest = manifestOf({ ...EXAMPLE, 'projects/payments.yaml': EDITED_PAYMENTS });
    await expect(check({ ...EXAMPLE, [SNAPSHOT_FILE]: manifest }, policy)).rejects.toMatchObject({
      name: 'DesiredStateInTransitError',
      code: 'DESIRED_STATE_IN_TRANSIT',
      mismatches: [{ path: 'projects/payments.yaml', problem: 'content differs' }],
    });
  });

  it('no manifest: nothing checked when optional; in transit when required', async () => {
    expect(await check(EXAMPLE, 'optional')).toEqual({ manifest: 'absent' });
    await expect(check(EXAMPLE, 'required')).rejects.toThrow(
      'the desired state at memory:/ has no snapshot manifest (.opsman-gitops-snapshot.json) yet, and this deployment requires one: the first upload is in progress or was interrupted; nothing was planned or written',
    );
  });

  it('a torn read names each file that differs, and counts them', async () => {
    // The new upload edits payments.yaml, adds a project file, removes search.yaml and re-pins the version manifest;
    // the run read none of that yet.
    const next: Record<string, string> = {
      ...EXAMPLE,
      'projects/payments.yaml': EDITED_PAYMENTS,
      'projects/new.yaml': EXAMPLE['projects/search.yaml'] as string,
      'manifests/approved.json': '{"versions":[]}',
    };
    delete next['projects/search.yaml'];
    const files = { ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf(next) };
    const compared = Object.keys(EXAMPLE).filter((p) => p.endsWith('.yaml')).length + 1 + 1; // + pin + new.yaml
    await expect(check(files)).rejects.toThrow(
      `the desired state at memory:/ does not match its snapshot manifest (.opsman-gitops-snapshot.json): 4 of ${compared} files differ (manifests/approved.json: content differs; projects/new.yaml: missing; projects/payments.yaml: content differs; projects/search.yaml: not in the snapshot): an upload is in progress or was interrupted; nothing was planned or written`,
    );
  });

  it('lists at most 10 files, then counts the rest', async () => {
    const extra = Object.fromEntries(
      Array.from({ length: 13 }, (_, i) => [`more/m${String(i).padStart(2, '0')}.yaml`, 'x']),
    );
    const files = { ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf({ ...EXAMPLE, ...extra }) };
    const error = (await check(files).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('13 of');
    expect(error.message).toContain('more/m09.yaml: missing; and 3 more): an upload is in progress');
    expect(error.message).not.toContain('more/m10.yaml');
  });

  it('quotes a path with control characters inert: the message stays one line and carries no escape sequence', async () => {
    const forged = 'more/a\nERROR forged line \u001b[31m.yaml';
    // The manifest refuses such a path; an S3 key the run lists is what can carry one.
    const moved: Record<string, string> = { ...EXAMPLE, [forged]: EXAMPLE['projects/search.yaml'] as string };
    delete moved['projects/search.yaml'];
    const files = { ...moved, [SNAPSHOT_FILE]: manifestOf(EXAMPLE) };
    const error = (await check(files).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('more/a\\u000aERROR forged line \\u001b[31m.yaml: not in the snapshot');
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('\u001b');
  });

  it.each([
    ['not JSON', '{"formatVersion":1,', 'is not valid JSON'],
    ['another format', '{"formatVersion":2,"files":[]}', 'has formatVersion 2; this version reads formatVersion 1'],
    ['a bad digest', '{"formatVersion":1,"files":[{"path":"a.yaml","sha256":"ab","size":1}]}', 'files[0].sha256'],
  ])('a malformed manifest (%s) is refused, naming the file and the problem', async (_name, text, problem) => {
    const error = (await check({ ...EXAMPLE, [SNAPSHOT_FILE]: text }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ name: 'SnapshotManifestInvalidError', code: 'SNAPSHOT_MANIFEST_INVALID' });
    expect(error.message).toContain(`the snapshot manifest memory:/${SNAPSHOT_FILE} `);
    expect(error.message).toContain(problem);
  });

  it('a pinned manifest given apart from the YAML files is compared once, as if listed with them', async () => {
    const source = new MemorySource({ ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf(EXAMPLE) });
    const { files, pin } = readOf(await stateOf(source));
    const yamlOnly = files.filter((f) => f.path !== pin?.path);
    expect(yamlOnly.length).toBe(files.length - 1);
    expect(await checkSnapshot(source, { files: yamlOnly, ...(pin ? { pin } : {}) })).toEqual({
      manifest: 'matched',
      files: files.length,
    });
  });

  it('a .yml file of the upload the run did not read is missing, as a .yaml one is', async () => {
    const files = { ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf({ ...EXAMPLE, 'projects/new.yml': 'x' }) };
    await expect(check(files)).rejects.toMatchObject({
      mismatches: [{ path: 'projects/new.yml', problem: 'missing' }],
    });
  });

  it('counts the listed files the load could not hash among the files matched', async () => {
    const source = new MemorySource({ ...EXAMPLE, [SNAPSHOT_FILE]: manifestOf(EXAMPLE) });
    const state = await stateOf(source);
    const [big, ...rest] = state.files.filter((f) => f.path.endsWith('.yaml'));
    const size = new TextEncoder().encode(EXAMPLE[big?.path as string]).length;
    const pin = readOf(state).pin;
    const read = {
      files: rest,
      ...(pin ? { pin } : {}),
      unhashed: [{ path: big?.path as string, reason: 'too big' as const, size }],
    };
    expect(await checkSnapshot(source, read)).toEqual({ manifest: 'matched', files: state.files.length });
  });

  it('a failure to read the manifest is not taken for "absent"', async () => {
    const source = new MemorySource(EXAMPLE);
    const state = await stateOf(source);
    source.readIfPresent = async () => {
      throw new Error('AccessDenied');
    };
    await expect(checkSnapshot(source, readOf(state), 'optional')).rejects.toThrow('AccessDenied');
  });
});

// The same check inside runReconcile: before the lease, before any Ops Manager request, through the cache or not.
const ORG = '5e2211c17a3e5a48f5497de0';
const P1 = '5e2211c17a3e5a48f5497de3';
const P2 = '5e2211c17a3e5a48f5497de4';

function upload(version: number): Record<string, string> {
  const alert = (key: string) => ({
    key,
    eventTypeName: 'HOST_DOWN',
    notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 60 + version }],
  });
  return {
    'settings.yaml': settingsYaml({ mode: 'apply', prune: { maxDeletes: 5, allowEmpty: false } }),
    'p1.yaml': projectYaml({ name: 'one', projectId: P1, orgId: ORG, alertConfigs: [alert('down')], prune: true }),
    'p2.yaml': projectYaml({ name: 'two', projectId: P2, orgId: ORG, alertConfigs: [alert('down')], prune: true }),
  };
}

function harness() {
  const world = new FakeWorld();
  world.addProject(P1, ORG);
  world.addProject(P2, ORG);
  const h = new ReconcileHarness(world);
  const cache = new MapCache();
  let runs = 0;
  const run = (policy: SnapshotPolicy = 'optional') => {
    const deps: RunDependencies = { ...h.deps(), desiredCache: cache, desiredSnapshot: policy };
    runs++;
    return runReconcile({ command: 'apply', runId: `run-${runs}`, owner: 'test' }, deps);
  };
  return { h, world, cache, run };
}

describe('runReconcile stops on a torn desired state', () => {
  it('cache miss: one file of the new upload next to an old one, the new manifest: nothing read, locked or written', async () => {
    const { h, world, run } = harness();
    const v1 = upload(1);
    h.setFiles({ ...v1, [SNAPSHOT_FILE]: manifestOf(v1) });
    const first = await run('required');
    expect(first.summary.applied).toBe(2);
    expect(h.reporter.messages).toContain('desired state matches its snapshot manifest (3 files)');
    const stateBefore = h.state.text;
    const callsBefore = world.calls.length;
    const writesBefore = h.state.writes;

    const v2 = upload(2);
    h.setFiles({ ...v1, 'p1.yaml': v2['p1.yaml'] as string, [SNAPSHOT_FILE]: manifestOf(v2) });
    await expect(run()).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      message: expect.stringContaining('1 of 3 files differ (p2.yaml: content differs)'),
    });
    expect(world.calls.length).toBe(callsBefore);
    expect(h.state.lease).toBeNull();
    expect(h.state.writes).toBe(writesBefore);
    expect(h.state.text).toBe(stateBefore);

    h.setFiles({ ...v2, [SNAPSHOT_FILE]: manifestOf(v2) });
    const whole = await run();
    expect(whole.summary.applied).toBe(2);
  });

  it('cache hit: the files are unchanged (served from the cache) but the manifest is a new upload: stopped', async () => {
    const { h, world, cache, run } = harness();
    const v1 = upload(1);
    h.setFiles({ ...v1, [SNAPSHOT_FILE]: manifestOf(v1) });
    await run();
    expect(cache.entries.size).toBe(1);
    const callsBefore = world.calls.length;
    const gets = cache.gets.length;
    const puts = cache.puts.length;
    h.setFiles({ ...v1, [SNAPSHOT_FILE]: manifestOf(upload(2)) });
    await expect(run()).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      message: expect.stringContaining('2 of 3 files differ (p1.yaml: content differs; p2.yaml: content differs)'),
    });
    // The cache was consulted and served the state (a miss would have stored it again): the check ran on a hit.
    expect(cache.gets.length).toBeGreaterThan(gets);
    expect(cache.puts.length).toBe(puts);
    expect(world.calls.length).toBe(callsBefore);
  });

  it('required without a manifest: in transit, before any request', async () => {
    const { h, world, run } = harness();
    h.setFiles(upload(1));
    await expect(run('required')).rejects.toMatchObject({ code: 'DESIRED_STATE_IN_TRANSIT' });
    expect(world.calls).toHaveLength(0);
    expect(h.state.text).toBeNull();
    // Optional (the CLI's default): the same files run as before manifests existed.
    expect((await run('optional')).summary.applied).toBe(2);
  });

  it('a torn upload that does not validate is in transit (retried), not invalid', async () => {
    const { h, world, run } = harness();
    const v2 = { ...upload(2), 'p3.yaml': 'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {}\n' };
    // Only the broken half of the new upload is there: a file of it is missing, and p3.yaml is not valid on its own.
    h.setFiles({ ...upload(1), 'p3.yaml': v2['p3.yaml'], [SNAPSHOT_FILE]: manifestOf(v2) });
    await expect(run()).rejects.toMatchObject({ code: 'DESIRED_STATE_IN_TRANSIT' });
    expect(world.calls).toHaveLength(0);
    // The same broken file in a whole upload is reported as invalid, as always.
    const broken = { ...upload(1), 'p3.yaml': v2['p3.yaml'] };
    h.setFiles({ ...broken, [SNAPSHOT_FILE]: manifestOf(broken) });
    await expect(run()).rejects.toBeInstanceOf(DesiredStateInvalidError);
  });

  it('a malformed manifest stops the run with SNAPSHOT_MANIFEST_INVALID', async () => {
    const { h, world, run } = harness();
    h.setFiles({ ...upload(1), [SNAPSHOT_FILE]: 'not json' });
    await expect(run()).rejects.toMatchObject({
      code: 'SNAPSHOT_MANIFEST_INVALID',
      message: expect.stringContaining(`the snapshot manifest memory:desired/${SNAPSHOT_FILE} is not valid JSON`),
    });
    expect(world.calls).toHaveLength(0);
  });
});

describe('a whole upload the loader cannot use is invalid, not in transit', () => {
  it('a file over the size limit, in the manifest at its size: DESIRED_STATE_INVALID naming it (was in transit forever)', async () => {
    const { h, world, run } = harness();
    const big = `# ${'x'.repeat(1024 * 1024)}\n`;
    const whole = { ...upload(1), 'big.yaml': big };
    h.setFiles({ ...whole, [SNAPSHOT_FILE]: manifestOf(whole) });
    const error = (await run('required').catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(DesiredStateInvalidError);
    expect(JSON.stringify((error as DesiredStateInvalidError).issues)).toContain('over the limit of 1048576 bytes');
    expect(world.calls).toHaveLength(0);
  });

  it('a file over the size limit whose size is not the manifest one is still in transit', async () => {
    const { h, run } = harness();
    const big = `# ${'x'.repeat(1024 * 1024)}\n`;
    const next = { ...upload(1), 'big.yaml': `${big}# edited\n` };
    h.setFiles({ ...upload(1), 'big.yaml': big, [SNAPSHOT_FILE]: manifestOf(next) });
    await expect(run('required')).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      mismatches: [{ path: 'big.yaml', problem: 'content differs' }],
    });
  });

  it('a file over the size limit that is not in the manifest is in transit', async () => {
    const { h, run } = harness();
    const big = `# ${'x'.repeat(1024 * 1024)}\n`;
    h.setFiles({ ...upload(1), 'big.yaml': big, [SNAPSHOT_FILE]: manifestOf(upload(1)) });
    await expect(run('required')).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      mismatches: [{ path: 'big.yaml', problem: 'not in the snapshot' }],
    });
  });
});

/** The upload's prune deletes `path` between the listing and its read. */
function deleteBeforeRead(h: ReconcileHarness, path: string): void {
  const read = h.source.read.bind(h.source);
  h.source.read = async (p: string) => {
    if (p === path) h.source.files.delete(p);
    return read(p);
  };
}

describe('a file listed, then deleted before it is read', () => {
  it('pruned by the upload whose manifest the run then reads: in transit (was reported invalid)', async () => {
    const { h, world, run } = harness();
    const v2 = upload(2);
    h.setFiles({ ...v2, 'gone.yaml': '# removed by this upload\n', [SNAPSHOT_FILE]: manifestOf(v2) });
    deleteBeforeRead(h, 'gone.yaml');
    await expect(run('required')).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      mismatches: [{ path: 'gone.yaml', problem: 'not in the snapshot' }],
    });
    expect(world.calls).toHaveLength(0);
  });

  it('listed by the manifest but unreadable (access denied): the read error, not in transit forever', async () => {
    const { h, world, run } = harness();
    const whole = { ...upload(1), 'locked.yaml': '# encrypted with a key the reader may not use\n' };
    h.setFiles({ ...whole, [SNAPSHOT_FILE]: manifestOf(whole) });
    const read = h.source.read.bind(h.source);
    h.source.read = async (path: string) => {
      if (path === 'locked.yaml')
        throw Object.assign(new Error('GetObject failed (403): AccessDenied'), { status: 403 });
      return read(path);
    };
    // The source's own error reaches the run (S3_ACCESS_DENIED in Lambda), not DESIRED_STATE_IN_TRANSIT.
    const error = (await run('required').catch((e: unknown) => e)) as Error & { status?: number; code?: string };
    expect(error.message).toBe('GetObject failed (403): AccessDenied');
    expect(error.code).not.toBe('DESIRED_STATE_IN_TRANSIT');
    expect(world.calls).toHaveLength(0);
  });

  it('listed by the manifest: still missing (in transit)', async () => {
    const { h, run } = harness();
    const v2 = { ...upload(2), 'gone.yaml': '# part of this upload\n' };
    h.setFiles({ ...v2, [SNAPSHOT_FILE]: manifestOf(v2) });
    deleteBeforeRead(h, 'gone.yaml');
    await expect(run('required')).rejects.toMatchObject({
      code: 'DESIRED_STATE_IN_TRANSIT',
      mismatches: [{ path: 'gone.yaml', problem: 'missing' }],
    });
  });
});
