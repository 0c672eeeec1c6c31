/**
 * Runs a snippet of module code in a separate Node process (TypeScript through tsx), for what a test cannot do in its
 * own process: a file-size limit (`ulimit -f`), or a call that might block the process for good (a synchronous read of
 * a FIFO), which the child's timeout then reports instead of hanging the test run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './cli-run.ts';

/** What the child's snippet threw (null: nothing), what it printed with `report(value)`, or that it never ended. */
export interface ChildOutcome {
  error: { name: string; code?: string; message: string; cause?: string } | null;
  reported?: unknown;
  /** True when the child was still running `timeoutMs` after its imports were loaded, and was killed. */
  hung: boolean;
}

/** The file URL of a repository module, to import it from a snippet. */
export const moduleUrl = (path: string): string => pathToFileURL(join(REPO_ROOT, path)).href;

/** What the child prints first, once its imports are loaded (stdout to a pipe is written at once on Linux). */
const READY = 'ready\n';

/** How long a child may take to load its imports. */
const STARTUP_LIMIT_MS = 45_000;

/**
 * Runs `body` (the body of an async function that sees `args`, the strings given, and `report(value)`) after
 * `imports`, in a child whose files may not grow past `fileSizeBlocks` blocks when given (Node ignores SIGXFSZ, so a
 * write past it fails with EFBIG). The child is killed `timeoutMs` after it is ready to run `body` (its imports
 * loaded): the limit measures the snippet, not Node's start and tsx compiling the modules, which a loaded machine
 * slows down by seconds. A child not ready within STARTUP_LIMIT_MS is killed and the call rejects.
 */
export function runInChild(
  imports: string,
  body: string,
  args: string[],
  options: { fileSizeBlocks?: number; timeoutMs?: number } = {},
): Promise<ChildOutcome> {
  const script = `${imports}
const args = process.argv.slice(1);
let reported;
const report = (value) => { reported = value; };
let error = null;
process.stdout.write(${JSON.stringify(READY)});
try {
  await (async () => { ${body} })();
} catch (e) {
  error = { name: e.name, code: e.code, message: e.message, cause: e.cause?.code };
}
process.stdout.write(JSON.stringify({ error, reported }));`;
  const node = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', script, ...args];
  const limit = options.fileSizeBlocks;
  const [command, ...commandArgs] =
    limit === undefined ? node : ['sh', '-c', 'ulimit -f "$1" && shift && exec "$@"', 'sh', String(limit), ...node];
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, commandArgs, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let hung = false;
    let started = false;
    let timer = setTimeout(() => child.kill('SIGKILL'), STARTUP_LIMIT_MS);
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (started || !out.startsWith(READY)) return;
      started = true;
      clearTimeout(timer);
      timer = setTimeout(() => {
        hung = true;
        child.kill('SIGKILL');
      }, options.timeoutMs ?? 20_000);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (hung) resolve({ error: null, hung: true });
      else if (!started) {
        const why = code === null ? `not ready within ${STARTUP_LIMIT_MS} ms` : `exited ${code} before it was ready`;
        reject(new Error(`child ${why}: ${err}`));
      } else if (code !== 0) reject(new Error(`child exited ${code}: ${err}`));
      else resolve({ ...(JSON.parse(out.slice(READY.length)) as Omit<ChildOutcome, 'hung'>), hung: false });
    });
  });
}
