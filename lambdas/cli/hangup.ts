/**
 * A terminal that went away under the process (the window closed, an ssh session dropped). The run stops gracefully
 * on the SIGHUP that comes with it (io.ts); once the command is over, the process ends as SIGHUP ends a process by
 * default (status 129) instead of through Node's exit. Why: Node 20's exit restores the settings of every standard
 * stream that was a terminal at start, and aborts (SIGABRT, "Assertion failed" in ResetStdio, a core dump where they
 * are on) when that fails because the terminal is gone: nodejs/node#51519, fixed after Node 20.
 */
import { isatty } from 'node:tty';

/** The standard streams (0, 1, 2) that were terminals when the CLI started: the ones Node's exit restores. */
const TERMINALS_AT_START = [0, 1, 2].filter((fd) => isatty(fd));

/** True when a standard stream that was a terminal at start no longer is one (isatty fails on a hung-up terminal). */
export function terminalGone(): boolean {
  return TERMINALS_AT_START.some((fd) => !isatty(fd));
}

/** Ends the process by SIGHUP when its terminal is gone; called once the command is over. Does nothing otherwise. */
export function endAsHangup(): void {
  if (!terminalGone()) return;
  process.removeAllListeners('SIGHUP');
  process.kill(process.pid, 'SIGHUP');
}
