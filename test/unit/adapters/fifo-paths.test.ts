// Scenario: a path the user names (or a file in a directory the user names) is a FIFO, or a device: the secrets file,
// the --ca-file, `apply --plan FILE`, the state directory's fingerprint key, state.json and lease.json, a desired-state cache
// entry, an archive object. Each read refuses it at once with a message that names the path and says what it is;
// none hangs (before, a FIFO with no writer blocked the run for good: the synchronous reads blocked the whole process,
// Ctrl-C included). Each runs in a child process, so a read that hangs is reported, not waited on.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { moduleUrl, runInChild } from '../../helpers/child-module.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fifo-paths-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A FIFO at `path` (nobody ever writes to it). */
function fifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

const FIFO_WORDS = 'it is a FIFO (named pipe), not a regular file';
const CACHE_KEY = 'c'.repeat(64);

/** Runs `body` (seeing `path`) in a child with a 10 s limit; what it threw. */
async function refusal(imports: string, body: string, path: string) {
  const outcome = await runInChild(imports, `const path = args[0];\n${body}`, [path], { timeoutMs: 10_000 });
  expect(outcome.hung, 'the read hung').toBe(false);
  return outcome.error;
}

describe('a FIFO or a device where a file is read', { timeout: 60_000 }, () => {
  it('--secrets-file: refused, naming the file', async () => {
    const path = fifo(join(dir, 'secrets.json'));
    const error = await refusal(
      `import { FileSecretResolver } from '${moduleUrl('lambdas/adapters/local/secrets-file.ts')}';`,
      `await new FileSecretResolver(path).resolve('slack#webhookUrl');`,
      path,
    );
    expect(error?.message).toBe(`secrets file ${path} cannot be read: ${FIFO_WORDS}`);
  });

  it('--secrets-file /dev/zero: refused as a device, not read forever', async () => {
    const error = await refusal(
      `import { FileSecretResolver } from '${moduleUrl('lambdas/adapters/local/secrets-file.ts')}';`,
      `await new FileSecretResolver(path).resolve('slack#webhookUrl');`,
      '/dev/zero',
    );
    expect(error?.message).toBe('secrets file /dev/zero cannot be read: it is a device, not a regular file');
  });

  it('--ca-file: refused, naming the setting and the file', async () => {
    const path = fifo(join(dir, 'ca.pem'));
    const error = await refusal(
      `import { buildCaList } from '${moduleUrl('lambdas/opsman/transport.ts')}';`,
      `buildCaList(path, {}, '--ca-file');`,
      path,
    );
    expect(error?.message).toBe(`cannot read --ca-file ${JSON.stringify(path)}: ${FIFO_WORDS}`);
  });

  it('apply --plan FILE: refused as not a saved plan, saying why (was: "no such file")', async () => {
    const path = fifo(join(dir, 'plan.json'));
    const error = await refusal(
      `import { readSavedPlan } from '${moduleUrl('lambdas/cli/commands/saved-plan.ts')}';`,
      'await readSavedPlan(path);',
      path,
    );
    expect(error).toMatchObject({ code: 'CLI_SAVED_PLAN_INVALID' });
    expect(error?.message).toBe(`${path} is not a plan saved by \`opsman-gitops plan --out\`: ${FIFO_WORDS}`);
  });

  it("the state directory's fingerprint key: refused, naming the file", async () => {
    const path = fifo(join(dir, 'fingerprint.key'));
    const error = await refusal(
      `import { loadFingerprintKey } from '${moduleUrl('lambdas/adapters/local/fingerprint-key.ts')}';`,
      `await loadFingerprintKey(path.slice(0, -'/fingerprint.key'.length), {});`,
      path,
    );
    expect(error).toMatchObject({ name: 'FingerprintKeyError' });
    expect(error?.message).toBe(`cannot read ${path}: ${FIFO_WORDS}`);
  });

  it('state.json: refused, naming the file', async () => {
    const path = fifo(join(dir, 'state.json'));
    const error = await refusal(
      `import { FsStateStore } from '${moduleUrl('lambdas/adapters/local/state-fs.ts')}';`,
      `await new FsStateStore(path.slice(0, -'/state.json'.length)).read();`,
      path,
    );
    expect(error).toMatchObject({ name: 'FsStoreError' });
    expect(error?.message).toBe(`cannot read ${path}: ${FIFO_WORDS}`);
  });

  // The lease is read under lease.json.lock by apply (acquire, renew, release) and by unlock: a FIFO there blocked
  // each of them for good, holding that lock.
  it('lease.json: refused by apply and unlock, naming the file', async () => {
    const path = fifo(join(dir, 'lease.json'));
    const imports = `import { FsStateStore } from '${moduleUrl('lambdas/adapters/local/state-fs.ts')}';`;
    const store = `new FsStateStore(path.slice(0, -'/lease.json'.length))`;
    for (const call of [
      `${store}.acquireLease({ owner: 'o', runId: 'r', ttlMs: 60_000 })`,
      `${store}.forceReleaseLease('r')`,
    ]) {
      const error = await refusal(imports, `await ${call};`, path);
      expect(error).toMatchObject({ name: 'FsStoreError' });
      expect(error?.message).toBe(`cannot read ${path}: ${FIFO_WORDS}`);
    }
  });

  it('a desired-state cache entry: refused (the cache then misses and replaces it)', async () => {
    const cache = join(dir, 'cache');
    await mkdir(cache);
    const path = fifo(join(cache, `${CACHE_KEY}.json`));
    const error = await refusal(
      `import { FsDesiredStateCache } from '${moduleUrl('lambdas/adapters/local/desired-cache-fs.ts')}';`,
      `await new FsDesiredStateCache(path.slice(0, path.lastIndexOf('/'))).get('${CACHE_KEY}');`,
      path,
    );
    expect(error).toMatchObject({ name: 'NotRegularFileError', message: FIFO_WORDS });
  });

  it('an archive object: refused, naming the file', async () => {
    await mkdir(join(dir, 'manifests'));
    const path = fifo(join(dir, 'manifests', 'latest.json'));
    const error = await refusal(
      `import { FsArchiveStore } from '${moduleUrl('lambdas/adapters/local/archive-fs.ts')}';`,
      `await new FsArchiveStore(path.slice(0, -'/manifests/latest.json'.length)).get('manifests/latest.json');`,
      path,
    );
    expect(error?.message).toBe(`cannot read ${path}: ${FIFO_WORDS}`);
  });
});
