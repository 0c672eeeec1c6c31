/**
 * The CLI's window on the process: output streams, terminal detection, environment and the confirmation prompt.
 * Injected, so tests run every command in-process with recorded output and a scripted terminal.
 */
import { createInterface } from 'node:readline/promises';

/** A writable text stream. */
export interface TextSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Everything the CLI reads from or writes to the process. */
export interface CliIo {
  /** Plans, reports, schema: what a pipe should receive. */
  stdout: TextSink;
  /** Progress, warnings, errors, prompts. */
  stderr: TextSink;
  /** True when a human can answer a prompt (stdin and stderr are terminals). */
  interactive: boolean;
  env: Record<string, string | undefined>;
  /** Asks one question; resolves to the answer, or null when input ended. */
  prompt(question: string): Promise<string | null>;
  /**
   * Calls `handler` on the first Ctrl-C or SIGTERM while subscribed; a second one prints `<signal> again: <again>` and
   * ends the process at once (exit 130). Returns the unsubscribe function. Absent: interrupts keep the process's
   * default (immediate exit).
   */
  onInterrupt?(handler: (signal: string) => void, again: string): () => void;
}

let pipeGuarded = false;

/** A closed pipe on stdout (`opsman-gitops plan | head`) ends the process quietly instead of crashing it. */
function guardBrokenPipe(): void {
  if (pipeGuarded) return;
  pipeGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`error: cannot write to stdout: ${error.message}\n`);
    process.exit(1);
  });
}

/** The real process: stdout/stderr, process.env, a readline prompt on stdin. */
export function processIo(): CliIo {
  guardBrokenPipe();
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    env: process.env,
    onInterrupt(handler: (signal: string) => void, again: string): () => void {
      let received = 0;
      const listener = (signal: NodeJS.Signals) => {
        received += 1;
        if (received === 1) {
          handler(signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal);
          return;
        }
        process.stderr.write(`${signal} again: ${again}\n`);
        process.exit(130);
      };
      process.on('SIGINT', listener);
      process.on('SIGTERM', listener);
      return () => {
        process.off('SIGINT', listener);
        process.off('SIGTERM', listener);
      };
    },
    async prompt(question: string): Promise<string | null> {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      try {
        return await new Promise<string | null>((resolve) => {
          rl.once('close', () => resolve(null));
          // Ctrl-C at the prompt cancels (readline would otherwise just pause and leave the prompt hanging).
          rl.once('SIGINT', () => rl.close());
          rl.question(question).then(resolve, () => resolve(null));
        });
      } finally {
        rl.close();
      }
    },
  };
}
