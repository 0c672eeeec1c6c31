/**
 * The CLI's window on the process: output streams, terminal detection, environment and the confirmation prompt.
 * Injected, so tests run every command in-process with recorded output and a scripted terminal.
 */
import { createInterface } from 'node:readline/promises';
import type { Clock } from '../core/ports.ts';
import { type GuardedOutput, guardOutput } from './process-output.ts';

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
  /** Asks one question; resolves to the answer, or null when input ended or `signal` was aborted. */
  prompt(question: string, signal?: AbortSignal): Promise<string | null>;
  /**
   * Calls `handler` on the first Ctrl-C, SIGTERM or SIGHUP while subscribed, or when stdout or stderr is closed (its
   * reader went away), with the reason for messages (`Ctrl-C (SIGINT)`) and the event to announce (`Ctrl-C (SIGINT)
   * received`; absent: `<reason> received`). A later Ctrl-C or SIGTERM prints `<signal> again: <again>` (a function:
   * asked then, for what fits the run's stage at that moment) and ends the process at once (exit 130). Returns the unsubscribe function. Absent: interrupts keep the process's default
   * (immediate exit).
   */
  onInterrupt?(handler: (reason: string, event?: string) => void, again: string | (() => string)): () => void;
  /** True when output was lost to a write error other than its reader leaving (a full disk): the run must fail. */
  outputLost?(): boolean;
  /** The time runs see (change windows are evaluated when the writes start); absent: the system clock. Tests fix it. */
  clock?: Clock;
}

/** What an interrupt was, as messages name it. */
function signalReason(signal: NodeJS.Signals): string {
  if (signal === 'SIGINT') return 'Ctrl-C (SIGINT)';
  if (signal === 'SIGHUP') return 'SIGHUP (terminal closed)';
  return signal;
}

let output: GuardedOutput | undefined;

/** The real process: stdout/stderr (guarded: process-output.ts), process.env, a readline prompt on stdin. */
export function processIo(): CliIo {
  if (output === undefined) {
    const guarded = guardOutput({ stdout: process.stdout, stderr: process.stderr });
    // Output lost after the command returned its code (a write fails a tick later): the process still fails. runCli
    // checks lost() too, for output lost during the command.
    guarded.onClosed(() => {
      if (guarded.lost() && (process.exitCode ?? 0) === 0) process.exitCode = 1;
    });
    output = guarded;
  }
  const { stdout, stderr } = output;
  const guarded = output;
  return {
    stdout,
    stderr,
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    env: process.env,
    outputLost: () => guarded.lost(),
    onInterrupt(handler: (reason: string, event?: string) => void, again: string | (() => string)): () => void {
      // Stopping: the handler was called (by a signal or a reader gone). A Ctrl-C or SIGTERM then stops at once,
      // whatever started the stop: someone who asks after a SIGHUP or a closed pipe wants the process gone.
      let stopping = false;
      const first = (reason: string, event: string) => {
        stopping = true;
        handler(reason, event);
      };
      const listener = (signal: NodeJS.Signals) => {
        const reason = signalReason(signal);
        // A closed terminal often sends SIGHUP twice (the shell, then the kernel): SIGHUP never stops at once.
        if (signal === 'SIGHUP') {
          if (!stopping) first(reason, `${reason} received`);
          return;
        }
        if (!stopping) {
          first(reason, `${reason} received`);
          return;
        }
        stderr.write(`${signal} again: ${typeof again === 'function' ? again() : again}\n`);
        process.exit(130);
      };
      // The reader of stdout or stderr went away: nobody sees the run any more, so it stops as on a first Ctrl-C.
      const closed = (reason: string) => {
        if (!stopping) first(reason, reason);
      };
      const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
      for (const signal of signals) process.on(signal, listener);
      const unsubscribe = guarded.onClosed(closed);
      return () => {
        for (const signal of signals) process.off(signal, listener);
        unsubscribe();
      };
    },
    async prompt(question: string, signal?: AbortSignal): Promise<string | null> {
      // Not `terminal: true`: the terminal stays in its own line mode, so Ctrl-C is the signal it stands for (caught
      // by onInterrupt, or ending the process) instead of a key readline swallows, and a terminal that goes away
      // ends the input (EOF) instead of failing readline's reset of raw mode (EIO, thrown where nothing can catch it).
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
      let onInputError = () => {};
      try {
        return await new Promise<string | null>((resolve) => {
          onInputError = () => resolve(null);
          rl.once('close', () => resolve(null));
          // Input that fails (a terminal gone: EIO) ends the question as input that ended does.
          process.stdin.once('error', onInputError);
          const options = signal === undefined ? {} : { signal };
          rl.question(question, options).then(resolve, () => resolve(null));
        });
      } finally {
        process.stdin.off('error', onInputError);
        rl.close();
      }
    },
  };
}
