/**
 * Waits for what a child process does on disk, so a test acts on an event of the run it watches rather than after a
 * fixed delay (which a loaded machine outruns).
 */
import { watch } from 'node:fs';
import { access } from 'node:fs/promises';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `path` exists (checked every 50 ms), or rejects after `limitMs`. For a file that stays. */
export async function fileAppears(path: string, limitMs = 60_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    if (
      await access(path).then(
        () => true,
        () => false,
      )
    )
      return;
    if (Date.now() > until) throw new Error(`${path} did not appear within ${limitMs} ms`);
    await sleep(50);
  }
}

/**
 * Resolves the first time an entry named `name` is created or removed in the existing directory `dir`, or rejects
 * after `limitMs`. For a file that comes and goes at once (a lock file), which polling would miss. The watch starts
 * when this is called: call it before starting the process watched.
 */
export function entryChanges(dir: string, name: string, limitMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir, (_event, file) => {
      if (file !== name) return;
      done();
      resolve();
    });
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${name} in ${dir} within ${limitMs} ms`));
    }, limitMs);
    const done = () => {
      clearTimeout(timer);
      watcher.close();
    };
  });
}
