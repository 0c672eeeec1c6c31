/**
 * Whether an apply may proceed: `--auto-approve` proceeds, a saved plan proceeds (it was reviewed when saved, as in
 * Terraform), a terminal asks, and anything else refuses before a single API call.
 */
import { SavedPlanStaleError, SavedPlanStateChangedError } from '../core/errors.ts';
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

/** Asks on the terminal; only an exact `yes` approves (Terraform's rule). */
export async function askApproval(io: CliIo): Promise<boolean> {
  io.stderr.write("\nDo you want to apply these changes?\n  Only 'yes' will be accepted to approve.\n\n");
  const answer = await io.prompt('  Enter a value: ');
  return answer?.trim() === 'yes';
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
