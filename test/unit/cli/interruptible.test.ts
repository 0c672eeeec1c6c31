// Scenario: a Ctrl-C notice fits the stage the run is in when it comes: an apply waiting for the lock says it holds
// none, the same apply once it holds the lock says the writes finish and the lock is released (first and second).
import { describe, expect, it } from 'vitest';
import { APPLY_NOTICES, interruptible, LOCK_WAIT_NOTICES } from '../../../lambdas/cli/interruptible.ts';
import type { CliIo } from '../../../lambdas/cli/io.ts';

/** An io whose interrupts the test sends: `first()` as a first Ctrl-C, `again()` what a second one would print. */
function interruptingIo() {
  let text = '';
  let handler: ((reason: string) => void) | undefined;
  let again: string | (() => string) = '';
  const io = {
    stdout: { write: () => true },
    stderr: {
      write: (chunk: string) => {
        text += chunk;
        return true;
      },
    },
    interactive: false,
    env: {},
    prompt: async () => null,
    onInterrupt: (h: (reason: string) => void, a: string | (() => string)) => {
      handler = h;
      again = a;
      return () => {
        handler = undefined;
      };
    },
  } as unknown as CliIo;
  return {
    io,
    stderr: () => text,
    first: () => handler?.('Ctrl-C (SIGINT)'),
    again: () => (typeof again === 'function' ? again() : again),
  };
}

describe('interruptible', () => {
  it('asks for the notices at each interrupt, so the one printed fits the stage the run is in then', async () => {
    for (const [stage, held] of [
      ['waiting for the lock', false],
      ['holding the lock', true],
    ] as const) {
      const t = interruptingIo();
      let lockHeld = false;
      const seen = await interruptible(
        t.io,
        () => (lockHeld ? APPLY_NOTICES : LOCK_WAIT_NOTICES),
        async (signal) => {
          lockHeld = held;
          t.first();
          return { aborted: signal.aborted, again: t.again() };
        },
      );
      const notices = held ? APPLY_NOTICES : LOCK_WAIT_NOTICES;
      expect(seen, stage).toEqual({ aborted: true, again: notices.again });
      expect(t.stderr(), stage).toBe(`\nCtrl-C (SIGINT) received: ${notices.first}\n`);
    }
    expect(LOCK_WAIT_NOTICES.first).not.toContain('lock released');
    expect(LOCK_WAIT_NOTICES.again).not.toContain('lock stays');
  });

  it("stops listening once the run is over: a later Ctrl-C is the process's own again, not a notice", async () => {
    const t = interruptingIo();
    await interruptible(t.io, APPLY_NOTICES, async () => 'done');
    t.first();
    expect(t.stderr()).toBe('');
  });
});
