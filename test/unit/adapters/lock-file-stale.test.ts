// Scenario: a short lock file left by a killed process (kill -9 while it held lease.json.lock or state.json.lock) is
// met by several processes at the same moment, once it is old enough to be taken as abandoned. Exactly one of them may
// hold the lock at a time: a process that removes the stale file must not remove the fresh lock of another process that
// removed it first, or two runs both take over an expired lease, or both pass the state's version check. Real
// processes, each racing on its own event loop, since the race is between processes.
import { access, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withLockFile } from '../../../lambdas/adapters/local/lock-file.ts';
import { moduleUrl, runInChild } from '../../helpers/child-module.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lock-file-stale-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PROCESSES = 4;
const ROUNDS = 8;
const ROUND_MS = 400;

/** Each child waits for `go` (the start time of round 0), then in each round takes lock-<round> at the same moment. */
const BODY = `
const [dir, id, rounds, roundMs] = args;
await writeFile(join(dir, 'ready-' + id), '');
let go;
for (;;) {
  go = await readFile(join(dir, 'go'), 'utf8').catch(() => undefined);
  if (go) break;
  await new Promise((r) => setTimeout(r, 5));
}
const start = Number(go);
for (let round = 0; round < Number(rounds); round++) {
  const at = start + round * Number(roundMs);
  while (Date.now() < at) await new Promise((r) => setTimeout(r, Math.max(0, Math.min(5, at - Date.now() - 1))));
  await withLockFile(join(dir, 'lock-' + round), async () => {
    await appendFile(join(dir, 'log'), 'enter ' + round + ' ' + id + '\\n');
    await new Promise((r) => setTimeout(r, 20));
    await appendFile(join(dir, 'log'), 'exit ' + round + ' ' + id + '\\n');
  }, { staleLockMs: 30_000, lockWaitMs: 20_000 });
}`;

const IMPORTS = `import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withLockFile } from ${JSON.stringify(moduleUrl('lambdas/adapters/local/lock-file.ts'))};`;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('a stale lock file met by several processes at once', { timeout: 120_000 }, () => {
  it('is taken over by one of them at a time, every round', async () => {
    const old = new Date(Date.now() - 10 * 60_000);
    for (let round = 0; round < ROUNDS; round++) {
      await writeFile(join(dir, `lock-${round}`), '');
      await utimes(join(dir, `lock-${round}`), old, old);
    }
    const children = Array.from({ length: PROCESSES }, (_, id) =>
      runInChild(IMPORTS, BODY, [dir, String(id), String(ROUNDS), String(ROUND_MS)], { timeoutMs: 60_000 }),
    );
    for (let id = 0; id < PROCESSES; id++) {
      while (!(await exists(join(dir, `ready-${id}`)))) await new Promise((r) => setTimeout(r, 20));
    }
    await writeFile(join(dir, 'go'), String(Date.now() + 300));
    const outcomes = await Promise.all(children);
    expect(outcomes.map((o) => o.error ?? (o.hung ? 'hung' : null))).toEqual(Array(PROCESSES).fill(null));

    const log = (await readFile(join(dir, 'log'), 'utf8')).trim().split('\n');
    const inside = new Map<string, number>();
    const overlaps: string[] = [];
    for (const line of log) {
      const [what, round] = line.split(' ') as [string, string];
      const now = (inside.get(round) ?? 0) + (what === 'enter' ? 1 : -1);
      if (now > 1) overlaps.push(line);
      inside.set(round, now);
    }
    expect(overlaps).toEqual([]);
    expect(log).toHaveLength(2 * PROCESSES * ROUNDS);
  });
});

describe('a lock held by a live process longer than staleLockMs', () => {
  it('is kept fresh while its holder works, so nobody takes it as abandoned', async () => {
    const path = join(dir, 'lock');
    const options = { staleLockMs: 300, lockWaitMs: 2_000 };
    const order: string[] = [];
    const slow = withLockFile(
      path,
      async () => {
        order.push('slow enter');
        await new Promise((r) => setTimeout(r, 900));
        order.push('slow exit');
      },
      options,
    );
    await new Promise((r) => setTimeout(r, 50));
    const other = withLockFile(
      path,
      async () => {
        order.push('other enter');
      },
      { staleLockMs: 300, lockWaitMs: 5_000 },
    );
    await Promise.all([slow, other]);
    expect(order).toEqual(['slow enter', 'slow exit', 'other enter']);
  });
});
