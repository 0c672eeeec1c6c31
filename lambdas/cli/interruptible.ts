/**
 * A graceful Ctrl-C for the commands that write: the first interrupt aborts the run's signal (core/interrupt.ts), so no
 * new write starts, the writes in flight finish, the state is saved and the lock released; a second one ends the
 * process at once (io.ts). Terraform's behaviour, and for the same reason: a killed apply leaves its lock behind.
 */
import type { CliIo } from './io.ts';

/** Runs `run` with a signal that the first interrupt aborts, announcing it on stderr. */
export async function interruptible<T>(io: CliIo, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const unsubscribe = io.onInterrupt?.((signal) => {
    io.stderr.write(
      `\n${signal} received: no new write starts; the writes in flight finish, then the state is saved and the lock released. Interrupt again to stop at once (the lock then stays until it expires).\n`,
    );
    controller.abort(signal);
  });
  try {
    return await run(controller.signal);
  } finally {
    unsubscribe?.();
  }
}
