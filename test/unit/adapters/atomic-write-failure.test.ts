// Scenario: an atomic write of a local store fails mid-way (the file-size limit of `ulimit -f` makes the write fail
// with EFBIG, as a full disk does with ENOSPC): the state, an archive object, a desired-state cache entry and the
// fingerprint key each reject with that failure, and leave no temp file behind (before, writeChunksAtomic left its
// hidden `.<hex>-<n>.tmp` beside state.json or the archive object).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/cli-run.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-write-failure-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the child saw: the failure (name, code, message, the cause's code) and every name left in the directory. */
interface Outcome {
  error: { name: string; code?: string; message: string; cause?: string } | null;
  left: string[];
}

const moduleUrl = (path: string) => pathToFileURL(join(REPO_ROOT, path)).href;

/**
 * Runs `body` (an async function body given `dir` and `big`, a 1 MB string) in a Node child whose files may not grow
 * past `blocks` blocks (`ulimit -f`; Node ignores SIGXFSZ, so the write fails with EFBIG), and reports its outcome.
 */
function underFileSizeLimit(blocks: number, imports: string, body: string): Promise<Outcome> {
  const script = `${imports}
import { readdirSync } from 'node:fs';
const dir = process.argv[1];
const big = 'x'.repeat(1 << 20);
let error = null;
try {
  await (async () => { ${body} })();
} catch (e) {
  error = { name: e.name, code: e.code, message: e.message, cause: e.cause?.code };
}
const left = [];
const walk = (d, prefix) => {
  for (const entry of readdirSync(d, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(join(d, entry.name), prefix + entry.name + '/');
    else left.push(prefix + entry.name);
  }
};
walk(dir, '');
process.stdout.write(JSON.stringify({ error, left: left.sort() }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      'sh',
      [
        '-c',
        'ulimit -f "$1" && shift && exec "$@"',
        'sh',
        String(blocks),
        process.execPath,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { join } from 'node:path';\n${script}`,
        dir,
      ],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as Outcome);
    });
  });
}

const TEMP = /(^|\/)\.[^/]*\.tmp$/;

describe('an atomic write that fails leaves no temp file and reports its own failure', { timeout: 60_000 }, () => {
  it('state.json (FsStateStore.write, chunked)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsStateStore } from '${moduleUrl('lambdas/adapters/local/state-fs.ts')}';`,
      `await new FsStateStore(dir).write({ formatVersion: 1, projects: { p: { note: big } } }, null);`,
    );
    expect(outcome.error).toMatchObject({ name: 'FsStoreError', cause: 'EFBIG' });
    expect(outcome.error?.message).toMatch(/^cannot write .*state\.json: .*EFBIG/);
    expect(outcome.left.filter((name) => TEMP.test(name))).toEqual([]);
    expect(outcome.left).not.toContain('state.json');
  });

  it('an archive object (FsArchiveStore.putPieces, chunked)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsArchiveStore } from '${moduleUrl('lambdas/adapters/local/archive-fs.ts')}';`,
      `await new FsArchiveStore(dir).putPieces('usage/2026-11.json', [big]);`,
    );
    expect(outcome.error).toMatchObject({ name: 'FsStoreError', cause: 'EFBIG' });
    expect(outcome.left.filter((name) => TEMP.test(name))).toEqual([]);
    expect(outcome.left).toEqual([]);
  });

  it('a desired-state cache entry (FsDesiredStateCache.putPieces)', async () => {
    const outcome = await underFileSizeLimit(
      64,
      `import { FsDesiredStateCache } from '${moduleUrl('lambdas/adapters/local/desired-cache-fs.ts')}';`,
      `await new FsDesiredStateCache(dir).putPieces('${'a'.repeat(64)}', [big]);`,
    );
    expect(outcome.error).toMatchObject({ code: 'EFBIG' });
    expect(outcome.left).toEqual([]);
  });

  it('the fingerprint key (created on first use)', async () => {
    const outcome = await underFileSizeLimit(
      0,
      `import { loadFingerprintKey } from '${moduleUrl('lambdas/adapters/local/fingerprint-key.ts')}';`,
      'await loadFingerprintKey(dir, {});',
    );
    expect(outcome.error).toMatchObject({ name: 'FingerprintKeyError', cause: 'EFBIG' });
    expect(outcome.left).toEqual([]);
  });
});
