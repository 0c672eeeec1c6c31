/**
 * The CLI's window on the process: output streams, terminal detection, environment and the confirmation prompt.
 * Injected, so tests run every command in-process with recorded output and a scripted terminal.
 */
import { createInterface } from 'node:readline/promises';
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
  /** Asks one question; resolves to the answer, or null when input ended. */
  prompt(question: string): Promise<string | null>;
  /**
   * Calls `handler` on the first Ctrl-C, SIGTERM or SIGHUP while subscribed, or when stdout or stderr is closed (its
   * reader went away), with the reason for messages (`Ctrl-C (SIGINT)`) and the event to announce (`Ctrl-C (SIGINT)
   * received`; absent: `<reason> received`). A later Ctrl-C or SIGTERM prints `<signal> again: <again>` and ends the
   * process at once (exit 130). Returns the unsubscribe function. Absent: interrupts keep the process's default
   * (immediate exit).
   */
  onInterrupt?(handler: (reason: string, event?: string) => void, again: string): () => void;
  /** True when output was lost to a write error other than its reader leaving (a full disk): the run must fail. */
  outputLost?(): boolean;
}

/** What an interrupt was, as messages name it. */
function signalReason(signal: NodeJS.Signals): string {
  if (signal === 'SIGINT') return 'Ctrl-C (SIGINT)';
  if (signal === 'SIGHUP') return 'SIGHUP (terminal closed)';
  return signal;
}

let output: GuardedOutput | undefined;
/** A SIGHUP stopped a run while a standard stream was a terminal: that terminal is most likely gone. */
let hungUp = false;

/**
 * After a run that SIGHUP stopped on a terminal, ends the process as SIGHUP does by default (status 129), skipping
 * Node's exit. Why: Node 20's exit restores the terminal's settings and aborts (SIGABRT, "Assertion failed" in
 * ResetStdio, a core dump where they are on) when the terminal is gone (EIO): nodejs/node#51519, fixed after Node 20.
 * The run has saved its state and released its lock by then. Does nothing otherwise.
 */
export function endAsHangup(): void {
  if (!hungUp) return;
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
}

/** The real process: stdout/stderr (guarded: process-output.ts), process.env, a readline prompt on stdin. */
export function processIo(): CliIo {
  output ??= guardOutput({ stdout: process.stdout, stderr: process.stderr });
  const { stdout, stderr } = output;
  const guarded = output;
  return {
    stdout,
    stderr,
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    env: process.env,
    outputLost: () => guarded.lost(),
    onInterrupt(handler: (reason: string, event?: string) => void, again: string): () => void {
      // Stopping: the handler was called. Asked: someone sent Ctrl-C or SIGTERM; a second such signal stops at once.
      let stopping = false;
      let asked = false;
      const first = (reason: string, event: string) => {
        stopping = true;
        handler(reason, event);
      };
      const listener = (signal: NodeJS.Signals) => {
        const reason = signalReason(signal);
        // A closed terminal often sends SIGHUP twice (the shell, then the kernel): SIGHUP never stops at once.
        if (signal === 'SIGHUP') {
          hungUp ||= [process.stdin, process.stdout, process.stderr].some((stream) => stream.isTTY === true);
          if (!stopping) first(reason, `${reason} received`);
          return;
        }
        if (!asked) {
          asked = true;
          first(reason, `${reason} received`);
          return;
        }
        stderr.write(`${signal} again: ${again}\n`);
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
