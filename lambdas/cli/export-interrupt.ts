/**
 * A graceful Ctrl-C for `export`, as for the other commands that talk to Ops Manager (interruptible.ts). While it
 * reads, the first interrupt abandons the reads in flight (none waiting is sent) and nothing is printed or written.
 * While it writes the files of --out (all or none: export-write.ts), the first interrupt stops at the next step and
 * removes what was made, so none is left; a second one ends the process at once, and the process's exit removes them
 * as well. Either way exit 130. Once every file is committed, an interrupt changes nothing: the export is complete.
 */
import { interruptReason } from '../core/interrupt.ts';
import { CliError, EXIT } from './errors.ts';
import type { InterruptNotices } from './interruptible.ts';

/** An export reading Ops Manager (and printing to stdout, which happens in one write after the last read). */
export const EXPORT_READING_NOTICES: InterruptNotices = {
  first: 'stopping; the reads in flight are abandoned and nothing is written. Interrupt again to stop at once.',
  again: 'stopping at once; nothing was written',
};

/** An export writing the files of --out. */
export const EXPORT_WRITING_NOTICES: InterruptNotices = {
  first:
    'stopping; the files written so far are removed again (all or none: none). Interrupt again to stop at once (they are removed then too).',
  again: 'stopping at once; the files written so far are removed (all or none: none)',
};

/** The error of an export stopped before or while reading: nothing was printed or written. */
export function exportReadInterrupted(signal: AbortSignal): CliError {
  return new CliError(
    'INTERRUPTED',
    `the export was stopped while reading Ops Manager (${interruptReason(signal)}): nothing was written`,
    EXIT.interrupted,
  );
}

/** The error of an export stopped while writing the files of --out: what was made is removed, or named if it stays. */
export function exportWriteInterrupted(signal: AbortSignal, left: readonly string[]): CliError {
  const done = left.length === 0 ? 'nothing was written' : `these could not be removed again: ${left.join(', ')}`;
  return new CliError(
    'INTERRUPTED',
    `the export was stopped while writing its files (${interruptReason(signal)}): ${done}`,
    EXIT.interrupted,
  );
}
