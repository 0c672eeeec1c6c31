// Scenario: apply's approval: auto-approve or a saved plan proceed, a terminal asks (only "yes"), no terminal refuses.
import { describe, expect, it } from 'vitest';
import { askApproval, confirmationMode, refusal, staleAfterApproval } from '../../../lambdas/cli/confirm.ts';
import { CliError } from '../../../lambdas/cli/errors.ts';
import { LeaseLostError, SavedPlanStaleError, SavedPlanStateChangedError } from '../../../lambdas/core/errors.ts';
import { recordingIo } from '../../helpers/cli-io.ts';

describe('confirmationMode', () => {
  it.each([
    { autoApprove: true, savedPlan: false, interactive: false, mode: 'proceed' },
    { autoApprove: true, savedPlan: false, interactive: true, mode: 'proceed' },
    { autoApprove: false, savedPlan: true, interactive: false, mode: 'proceed' },
    { autoApprove: false, savedPlan: true, interactive: true, mode: 'proceed' },
    { autoApprove: false, savedPlan: false, interactive: true, mode: 'ask' },
    { autoApprove: false, savedPlan: false, interactive: false, mode: 'refuse' },
  ])('auto=$autoApprove saved=$savedPlan tty=$interactive -> $mode', ({ mode, ...input }) => {
    expect(confirmationMode(input)).toBe(mode);
  });

  it('the refusal explains both ways out and exits 1', () => {
    const error = refusal();
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('CLI_APPROVAL_REQUIRED');
    expect(error.message).toContain('--auto-approve');
    expect(error.message).toContain('apply --plan FILE');
  });
});

describe('askApproval', () => {
  it.each([
    { answer: 'yes', approved: true },
    { answer: '  yes  ', approved: true },
    { answer: 'y', approved: false },
    { answer: 'YES', approved: false },
    { answer: '', approved: false },
    { answer: undefined, approved: false },
  ])('answer $answer -> $approved', async ({ answer, approved }) => {
    const io = recordingIo({ interactive: true, answers: answer === undefined ? [] : [answer] });
    expect(await askApproval(io)).toEqual({ approved });
    expect(io.questions).toEqual(['  Enter a value: ']);
    expect(io.err()).toContain("Only 'yes' will be accepted");
    expect(io.out()).toBe('');
  });
});

describe('staleAfterApproval', () => {
  it('words a stale plan for the plan shown on the terminal (no plan was saved), naming every target', () => {
    const stale = new SavedPlanStaleError(
      ['organization:o1', 'project:p1'],
      ['acme (organization:o1: could not re-read: 503)', 'payments-prod (project:p1)'],
    );
    const error = staleAfterApproval(stale) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('PLAN_STALE_AT_APPROVAL');
    expect(error.cause).toBe(stale);
    expect(error.message).toBe(
      'Ops Manager changed while the plan above was awaiting approval, for acme (organization:o1: could not re-read: 503), payments-prod (project:p1): nothing was written. Run apply again to see a plan of the current state.',
    );
    expect(error.message).not.toContain('saved');
  });

  it('words a state written by another run while the question was open the same way (no plan was saved)', () => {
    const changed = new SavedPlanStateChangedError('v1', 'v2', { runId: 'r2', finishedAt: '2026-11-21T10:05:00Z' });
    const error = staleAfterApproval(changed) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('PLAN_STALE_AT_APPROVAL');
    expect(error.cause).toBe(changed);
    expect(error.message).toBe(
      'the state was changed by another run while the plan above was awaiting approval: nothing was written. Run apply again to see a plan of the current state.',
    );
  });

  it('passes every other error through unchanged', () => {
    const other = new LeaseLostError('gone');
    expect(staleAfterApproval(other)).toBe(other);
  });
});

describe('askApproval interrupted', () => {
  it('a Ctrl-C while it waits cancels the question: not approved, interrupted by Ctrl-C', async () => {
    const io = recordingIo({ interactive: true });
    let interrupt: ((reason: string) => void) | undefined;
    let unsubscribed = false;
    io.onInterrupt = (handler) => {
      interrupt = handler;
      return () => {
        unsubscribed = true;
      };
    };
    // The prompt waits for an answer that never comes; only its signal ends it.
    io.prompt = (_question, signal) =>
      new Promise((resolve) => signal?.addEventListener('abort', () => resolve(null), { once: true }));
    const asked = askApproval(io);
    await Promise.resolve();
    interrupt?.('Ctrl-C (SIGINT)');
    expect(await asked).toEqual({ approved: false, interrupted: 'Ctrl-C (SIGINT)' });
    expect(unsubscribed).toBe(true);
  });
});

describe('askApproval with writes held by change windows', () => {
  it.each([
    {
      held: { made: 3, held: 9 },
      line: '  3 writes will be made; 9 writes held by change windows will not (see the plan).\n',
    },
    {
      held: { made: 1, held: 1 },
      line: '  1 write will be made; 1 write held by change windows will not (see the plan).\n',
    },
  ])('says $held.made made and $held.held held in the question', async ({ held, line }) => {
    const io = recordingIo({ interactive: true, answers: ['no'] });
    expect(await askApproval(io, held)).toEqual({ approved: false });
    expect(io.err()).toBe(
      `\nDo you want to apply these changes?\n${line}  Only 'yes' will be accepted to approve.\n\n`,
    );
  });

  it('none held: the question as always', async () => {
    const io = recordingIo({ interactive: true, answers: ['no'] });
    await askApproval(io, { made: 4, held: 0 });
    expect(io.err()).toBe("\nDo you want to apply these changes?\n  Only 'yes' will be accepted to approve.\n\n");
  });
});
