/**
 * The process's stdout and stderr as sinks that outlive their reader: `opsman-gitops apply 2>&1 | head`, a closed
 * terminal (writes fail with EIO), a full disk behind `> file`. Node reports such a failure as an 'error' event on the
 * stream; unhandled, it crashed the process mid-run, and an apply then left its lock held and its writes in flight
 * unverified. Here the failed stream is marked closed, every later write to it is dropped, and the listeners of the
 * moment hear of it once: a run in progress stops as on Ctrl-C (interruptible.ts), then ends with its own exit code.
 */
import type { TextSink } from './io.ts';

/** A process stream as this module needs it. */
export interface OutputStream {
  write(text: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  isTTY?: boolean;
}

/** The guarded streams and what became of them. */
export interface GuardedOutput {
  stdout: TextSink;
  stderr: TextSink;
  /**
   * Calls `listener` when a stream fails, with the reason (`stderr closed (EPIPE)`); each failure is told once, to the
   * listeners subscribed at that moment. Returns the unsubscribe function.
   */
  onClosed(listener: (reason: string) => void): () => void;
  /** True once output was lost for a reason other than its reader leaving (EPIPE, EIO): the exit code must say so. */
  lost(): boolean;
}

/** The reader went away: a closed pipe, a hung-up terminal. Quiet: nobody is left to tell. */
const READER_GONE = new Set(['EPIPE', 'EIO', 'ECONNRESET']);

/** Guards `stdout` and `stderr` (the CLI passes the process's own). */
export function guardOutput(streams: { stdout: OutputStream; stderr: OutputStream }): GuardedOutput {
  const closed = new Set<'stdout' | 'stderr'>();
  const listeners = new Set<(reason: string) => void>();
  let lost = false;

  const sink = (name: 'stdout' | 'stderr'): TextSink => {
    const stream = streams[name];
    stream.on('error', (error) => {
      if (closed.has(name)) return;
      closed.add(name);
      const code = typeof error.code === 'string' ? error.code : 'error';
      if (!READER_GONE.has(code)) {
        lost = true;
        if (!closed.has('stderr')) streams.stderr.write(`error: cannot write to ${name}: ${error.message}\n`);
      }
      for (const listener of [...listeners]) listener(`${name} closed (${code})`);
    });
    const guarded: TextSink = {
      write: (text: string) => (closed.has(name) ? true : stream.write(text)),
    };
    if (stream.isTTY !== undefined) guarded.isTTY = stream.isTTY;
    return guarded;
  };

  return {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    onClosed(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    lost: () => lost,
  };
}
