/**
 * A graceful Ctrl-C for the commands that talk to Ops Manager: the first interrupt aborts the run's signal
 * (core/interrupt.ts). While planning, the reads in flight are abandoned at once and nothing is written; while applying,
 * no new write starts, the writes in flight finish, the state is saved and the lock released; while an apply still waits
 * for the lock (`--lease-wait`), it stops waiting and has no lock to release or leave behind. A second interrupt ends
 * the process at once (io.ts). Terraform's behaviour, and for the same reason: a killed apply leaves its lock behind.
 */
import type { CliIo } from './io.ts';

/** What the first and the second interrupt print (after `<signal> received: ` and `<signal> again: `). */
export interface InterruptNotices {
  first: string;
  again: string;
}

/** A run that only reads: plan, observe, and the plan an interactive apply shows before asking. */
export const PLANNING_NOTICES: InterruptNotices = {
  first: 'stopping; the reads in flight are abandoned and nothing is written. Interrupt again to stop at once.',
  again: 'stopping at once',
};

/**
 * An apply run still waiting for the lock (`--lease-wait`) or taking it: it holds no lock and has written nothing, so
 * it stops waiting and there is neither a lock to release nor a lock left behind.
 */
export const LOCK_WAIT_NOTICES: InterruptNotices = {
  first:
    'stopping; the run is waiting for the lock and holds none: it stops waiting and nothing is written. Interrupt again to stop at once.',
  again: 'stopping at once',
};

/** An apply run: it may be planning (reads abandoned) or writing (writes in flight finish), and holds the lock. */
export const APPLY_NOTICES: InterruptNotices = {
  first:
    'no new write starts; the reads in flight are abandoned, the writes in flight finish, then the state is saved and the lock released. Interrupt again to stop at once (the lock then stays until it expires).',
  again: 'stopping at once; the lock stays until it expires',
};

/**
 * Runs `run` with a signal that the first interrupt aborts, announcing it on stderr. `notices` is a function when what
 * an interrupt does depends on the stage the run is in (an apply before and after it holds the lock): it is asked at
 * each interrupt.
 */
export async function interruptible<T>(
  io: CliIo,
  notices: InterruptNotices | (() => InterruptNotices),
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const current = typeof notices === 'function' ? notices : () => notices;
  const controller = new AbortController();
  const unsubscribe = io.onInterrupt?.(
    (reason, event = `${reason} received`) => {
      io.stderr.write(`\n${event}: ${current().first}\n`);
      // Aborting again (a Ctrl-C after a closed output) keeps the first reason.
      controller.abort(reason);
    },
    () => current().again,
  );
  try {
    return await run(controller.signal);
  } finally {
    unsubscribe?.();
  }
}
