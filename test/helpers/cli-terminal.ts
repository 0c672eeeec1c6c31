/**
 * Runs the real `opsman-gitops` binary on a pseudo-terminal (util-linux `script`), as a user at a terminal does: keys
 * typed reach it through the terminal (Ctrl-C is the terminal's SIGINT), and killing `script` closes the terminal
 * (the binary, leader of the terminal's session, gets SIGHUP and EIO).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { REPO_ROOT } from './cli-run.ts';

/** Whether util-linux `script` is installed (tests that need a terminal are skipped without it). */
export const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** One run of the binary on a terminal. */
export interface TerminalRun {
  /** What the terminal showed so far (stdout and, unless redirected, stderr). */
  output(): string;
  /** Waits until the output matches `pattern` (up to 60 s). */
  waitFor(pattern: RegExp): Promise<void>;
  /** The binary's process id. */
  pid(): Promise<number>;
  /** Types `keys` on the terminal. */
  type(keys: string): void;
  /** Closes the terminal (kills `script`, the terminal's other end). */
  hangUp(): Promise<void>;
  /** The binary's exit code, as `script -e` reports it, once the terminal closes. */
  done: Promise<number | null>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `opsman-gitops ARGS` on a new terminal with a clean environment plus `env`. The binary's pid is written to
 * `pidFile`; with `stderrFile`, its stderr goes there instead of the terminal (readable after the terminal is gone).
 */
export function runOnTerminal(
  args: readonly string[],
  env: Record<string, string>,
  files: { pidFile: string; stderrFile?: string },
): TerminalRun {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  // `exec`: the binary itself leads the terminal's session, as a job of a login shell is the one a hangup reaches.
  const command = [
    `echo $$ > ${quote(files.pidFile)}`,
    `exec ${[process.execPath, 'bin/opsman-gitops.mjs', ...args].map(quote).join(' ')}${
      files.stderrFile === undefined ? '' : ` 2> ${quote(files.stderrFile)}`
    }`,
  ].join('; ');
  const terminal: ChildProcessWithoutNullStreams = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'dumb', ...env },
  });
  let output = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const done = new Promise<number | null>((resolve) => terminal.on('close', (code) => resolve(code)));
  return {
    output: () => output,
    async waitFor(pattern) {
      for (let i = 0; i < 1200 && !pattern.test(output); i += 1) await sleep(50);
      if (!pattern.test(output)) throw new Error(`the terminal never showed ${pattern}:\n${output}`);
    },
    async pid() {
      for (let i = 0; i < 200; i += 1) {
        const text = await readFile(files.pidFile, 'utf8').catch(() => '');
        if (/^\d+\s*$/.test(text)) return Number(text);
        await sleep(50);
      }
      throw new Error(`no pid in ${files.pidFile}`);
    },
    type: (keys) => terminal.stdin.write(keys),
    async hangUp() {
      terminal.kill('SIGKILL');
      await done;
    },
    done,
  };
}

/** Whether process `pid` has ended (gone, or a zombie not reaped yet); waits up to 30 s for it. */
export async function processEnded(pid: number): Promise<boolean> {
  for (let i = 0; i < 600; i += 1) {
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    if (status === '' || /^State:\s+Z/m.test(status)) return true;
    await sleep(50);
  }
  return false;
}
