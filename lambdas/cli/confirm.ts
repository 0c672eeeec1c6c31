/**
 * Whether an apply may proceed: `--auto-approve` proceeds, a saved plan proceeds (it was reviewed when saved, as in
 * Terraform), a terminal asks, and anything else refuses before a single API call.
 */
import { SavedPlanStaleError, SavedPlanStateChangedError } from '../core/errors.ts';
import { interruptReason } from '../core/interrupt.ts';
import { CliError, EXIT } from './errors.ts';
import type { CliIo } from './io.ts';

/** The decision before planning. */
export type ConfirmationMode = 'proceed' | 'ask' | 'refuse';

/** Decides how an apply gets its approval. */
export function confirmationMode(input: {
  autoApprove: boolean;
  savedPlan: boolean;
  interactive: boolean;
}): ConfirmationMode {
  if (input.autoApprove || input.savedPlan) return 'proceed';
  return input.interactive ? 'ask' : 'refuse';
}

/** The error of a non-interactive apply without --auto-approve. */
export function refusal(): CliError {
  return new CliError(
    'CLI_APPROVAL_REQUIRED',
    'apply needs approval: no terminal to ask on. Review `opsman-gitops plan` and re-run with --auto-approve, ' +
      'or save a plan with `plan --out FILE` and run `apply --plan FILE`.',
  );
}

/** `1 write`, `3 writes`. */
function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The answer at the approval prompt: `interrupted` names what stopped it (the apply is then cancelled, exit 130). */
export interface Approval {
  approved: boolean;
  interrupted?: string;
}

/**
 * Asks on the terminal; only an exact `yes` approves (Terraform's rule). `held`: how many of the plan's writes would be
 * made and how many change windows hold, said in the question when some are held. A Ctrl-C, SIGTERM or SIGHUP while it waits
 * (or stdout or stderr closing) cancels the question: not approved, and `interrupted` says by what.
 */
export async function askApproval(io: CliIo, held?: { made: number; held: number }): Promise<Approval> {
  // Some writes held by change windows: the question says how many are made, so "yes" is not read as "all of them".
  const split =
    held === undefined || held.held === 0
      ? ''
      : `  ${plural(held.made, 'write')} will be made; ${plural(held.held, 'write')} held by change windows will not (see the plan).\n`;
  io.stderr.write(`\nDo you want to apply these changes?\n${split}  Only 'yes' will be accepted to approve.\n\n`);
  const controller = new AbortController();
  const unsubscribe = io.onInterrupt?.((reason) => controller.abort(reason), 'stopping at once');
  try {
    const answer = await io.prompt('  Enter a value: ', controller.signal);
    if (controller.signal.aborted) return { approved: false, interrupted: interruptReason(controller.signal) };
    return { approved: answer?.trim() === 'yes' };
  } finally {
    unsubscribe?.();
  }
}

/**
 * The error of an approved plan that Ops Manager or another run outran: the plan shown is applied as a saved plan (so
 * exactly it is written), but the user saved nothing, so "the saved plan is stale" would puzzle them. Any other error
 * passes as is.
 */
export function staleAfterApproval(error: unknown): unknown {
  if (error instanceof SavedPlanStateChangedError) {
    return new CliError(
      'PLAN_STALE_AT_APPROVAL',
      'the state was changed by another run while the plan above was awaiting approval: nothing was written. ' +
        'Run apply again to see a plan of the current state.',
      EXIT.error,
      { cause: error },
    );
  }
  if (!(error instanceof SavedPlanStaleError)) return error;
  return new CliError(
    'PLAN_STALE_AT_APPROVAL',
    `Ops Manager changed while the plan above was awaiting approval, for ${error.labels.join(', ')}: nothing was ` +
      'written. Run apply again to see a plan of the current state.',
    EXIT.error,
    { cause: error },
  );
}
