// Scenario: archive and plan against the emulator with an archive or state directory that cannot be written (a regular file in the way: ENOTDIR even as root) print one precise error per cause, each once, and say truthfully what was and was not written.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';
import { REPO_ROOT, toolEnv } from '../../helpers/cli-run.ts';

let emulator: { url: string; close(): Promise<void> };
let dir: string;
/** A regular file: every path under it fails with ENOTDIR. */
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-dir-errors-'));
  file = join(dir, 'a-file');
  await writeFile(file, 'x');
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
});

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = recordingIo({ env: toolEnv(emulator.url) });
  // archive reads no secrets, so it refuses --secrets-file (every command takes only the options it uses).
  const common = ['--desired', join(REPO_ROOT, 'desired-state')];
  if (argv[0] !== 'archive') common.push('--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json'));
  const code = await runCli([...argv, ...common], { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

describe('archive', { timeout: 60_000 }, () => {
  it('an archive directory under a file: one error naming the path and cause, before any Ops Manager call', async () => {
    const archiveDir = join(file, 'archive');
    const run = await cli(['archive', '--archive-dir', archiveDir, '--state-dir', join(dir, 'state')]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toBe(
      `error: cannot create the archive directory ${archiveDir}: ${file} is a file, not a directory (ENOTDIR). ` +
        'Check --archive-dir; nothing was archived and Ops Manager was not called.\n',
    );
  });

  it('a failed write mid-run: each error once, no "Ops Manager (global)" copy, what was written is listed', async () => {
    const archiveDir = join(dir, 'archive');
    await mkdir(archiveDir);
    await writeFile(join(archiveDir, 'manifests'), 'in the way');
    await writeFile(join(archiveDir, 'reports'), 'in the way');
    const run = await cli(['archive', '--archive-dir', archiveDir, '--state-dir', join(dir, 'state')]);
    expect(run.code).toBe(1);
    const blocked = `cannot create the archive directory ${join(archiveDir, 'manifests', 'sha256')}: ${join(archiveDir, 'manifests')} is a file, not a directory (ENOTDIR)`;
    expect(run.out.split(blocked)).toHaveLength(2);
    expect(run.out).toContain(`x version manifest: ${blocked}`);
    expect(run.out).not.toContain('Ops Manager (global)');
    expect(run.out).toMatch(/^ {2}\+ usage\/\d{4}-\d{2}\/physical-hosts\.json$/m);
    expect(run.out).not.toContain('nothing written');
    expect(run.out).toContain(
      `Warning: the run report could not be written: cannot create the archive directory ${join(archiveDir, 'reports')}`,
    );
    expect(run.out).not.toMatch(/^Report: /m);
    expect(run.out).toContain('Archive finished with 1 error;');
    expect(run.err).toContain('error: 1 archive error (details on stdout)');
  });

  it('every write failing: "nothing written" says why, never "archiving is off"', async () => {
    const archiveDir = join(dir, 'archive');
    await mkdir(archiveDir);
    for (const name of ['manifests', 'usage']) await writeFile(join(archiveDir, name), 'in the way');
    const run = await cli(['archive', '--archive-dir', archiveDir, '--state-dir', join(dir, 'state')]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^ {2}\(nothing written: \d+ archive errors, listed below\)$/m);
    expect(run.out).not.toContain('archiving is off');
    expect(run.out).toMatch(/^Usage \d{4}-\d{2}: nothing stored$/m);
  });
});

describe('plan', { timeout: 60_000 }, () => {
  it('a state directory under a file: the error names the directory and the cause', async () => {
    const stateDir = join(file, 'state');
    const run = await cli(['plan', '--state-dir', stateDir]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `error: cannot create the state directory ${stateDir}: ${file} is a file, not a directory (FS_STORE_ERROR, ENOTDIR)`,
    );
  });

  it('an archive directory under a file: the plan is shown, and a warning says its report was not written', async () => {
    const run = await cli(['plan', '--state-dir', join(dir, 'state'), '--archive-dir', join(file, 'archive')]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Plan: /m);
    expect(run.err).toContain(
      `warning: the run report could not be written: cannot create the archive directory ${join(file, 'archive', 'reports')}`,
    );
    expect(run.err).toContain(`${file} is a file, not a directory (ENOTDIR)`);
  });
});

describe('plan --out', { timeout: 60_000 }, () => {
  // The file is written through a temp file beside it: the message names the user's path, never that temp file.
  it.each([
    {
      name: 'a missing directory',
      out: () => join(dir, 'missing', 'plan.json'),
      cause: () => `${join(dir, 'missing')} does not exist (ENOENT)`,
    },
    {
      name: 'a directory under a file',
      out: () => join(file, 'plan.json'),
      cause: () => `${file} is a file, not a directory (ENOTDIR)`,
    },
    { name: 'a directory in its place', out: () => dir, cause: () => `${dir} is a directory (EISDIR)` },
  ])('$name: the error names --out and the cause', async ({ out, cause }) => {
    const run = await cli(['plan', '--state-dir', join(dir, 'state'), '--out', out()]);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^Plan: /m);
    expect(run.err).toContain(`error: cannot save the plan to ${out()}: ${cause()}\n`);
    expect(run.err).not.toContain('.tmp');
  });
});

describe('archive before it can run', () => {
  it('missing credentials: a usage error that leaves no directory behind', async () => {
    const stateDir = join(dir, 'state');
    const io = recordingIo({ env: {} });
    const argv = ['archive', '--desired', join(REPO_ROOT, 'desired-state'), '--state-dir', stateDir];
    const code = await runCli(argv, { startEmulator: noEmulator, io });
    expect(code).toBe(2);
    expect(io.err()).toContain('archive talks to Ops Manager and needs');
    expect(await readdir(dir)).toEqual(['a-file']);
  });
});
