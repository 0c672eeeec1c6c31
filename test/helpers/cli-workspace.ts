/**
 * The CLI tests' workspace: a temp copy of the example desired state, an emulator on a free loopback port, and the
 * path options every command of the test takes (`--desired`, `--state-dir`, `--secrets-file`, optionally
 * `--project`).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/index.ts';
import { REPO_ROOT } from './cli-run.ts';

/** One test's workspace. */
export interface ExampleWorkspace {
  dir: string;
  emulator: { url: string; origin: string; close(): Promise<void> };
  common: string[];
}

/** How the workspace is made. */
export interface WorkspaceOptions {
  /** The secrets file: the repository's (default) or the one in the copy (a test that edits it). */
  secrets?: 'repository' | 'copy';
  /** Adds `--project <id>` to the common options. */
  project?: string;
  /** The emulator's admin API (faults, request log); default true. */
  admin?: boolean;
}

/** Copies desired-state/ into a new temp dir (named from `prefix`) and starts an emulator. */
export async function openExampleWorkspace(prefix: string, options: WorkspaceOptions = {}): Promise<ExampleWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    ...(options.admin === false ? {} : { admin: true }),
  });
  await cp(join(REPO_ROOT, 'desired-state'), join(dir, 'desired'), { recursive: true });
  const secrets =
    options.secrets === 'copy'
      ? join(dir, 'desired/local-secrets.json')
      : join(REPO_ROOT, 'desired-state/local-secrets.json');
  const common = ['--desired', join(dir, 'desired'), '--state-dir', join(dir, 'state'), '--secrets-file', secrets];
  if (options.project !== undefined) common.push('--project', options.project);
  return { dir, emulator, common };
}

/**
 * The workspace's common options for the command `argv`: all of them, but without `--project <id>` for `apply --plan`
 * (a saved plan names its targets itself, and apply refuses the option with it).
 */
export function commonOptionsFor(common: readonly string[], argv: readonly string[]): string[] {
  if (!argv.includes('--plan')) return [...common];
  return common.filter((a, i) => a !== '--project' && common[i - 1] !== '--project');
}

/** Stops the emulator and removes the temp dir. */
export async function closeExampleWorkspace(w: Pick<ExampleWorkspace, 'dir' | 'emulator'>): Promise<void> {
  await w.emulator.close();
  await rm(w.dir, { recursive: true, force: true });
}

/** Replaces `from` (which must be there: a test edits what it means to) with `to` in the workspace's desired file `file`. */
export async function editDesired(dir: string, file: string, from: string, to: string): Promise<void> {
  const path = join(dir, 'desired', file);
  const text = await readFile(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no ${JSON.stringify(from)}`);
  await writeFile(path, text.replace(from, to));
}
