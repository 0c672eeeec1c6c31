// Scenario: a process stream fails (its reader left, or the disk is full): later writes to it are dropped, the
// listeners of the moment hear of it once, and only a failure other than a reader leaving says so and counts as lost.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { guardOutput } from '../../../lambdas/cli/process-output.ts';

/** A stream that records what reached it and fails when told to. */
class FakeStream extends EventEmitter {
  written: string[] = [];
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  fail(code: string): void {
    this.emit('error', Object.assign(new Error(`write ${code}`), { code }));
  }
}

function world() {
  const stdout = new FakeStream();
  const stderr = new FakeStream();
  const output = guardOutput({ stdout, stderr });
  const heard: string[] = [];
  const unsubscribe = output.onClosed((reason) => heard.push(reason));
  return { stdout, stderr, output, heard, unsubscribe };
}

describe('guardOutput', () => {
  it.each([
    ['stdout', 'EPIPE', false, []],
    ['stderr', 'EPIPE', false, []],
    ['stderr', 'EIO', false, []],
    // A socket the reader reset (stdout to `nc`, to a remote pipe): the reader left, nothing was lost to the disk.
    ['stdout', 'ECONNRESET', false, []],
    ['stdout', 'ENOSPC', true, ['error: cannot write to stdout: write ENOSPC\n']],
    // stderr itself failed: nothing is written to it again, not even the error that says so.
    ['stderr', 'ENOSPC', true, []],
  ] as const)('%s failing with %s: dropped, told once, lost=%s', (name, code, lost, said) => {
    const w = world();
    w.output[name].write('before\n');
    w[name].fail(code);
    w[name].fail(code);
    w.output[name].write('after\n');
    expect(w[name].written.filter((t) => !t.startsWith('error:'))).toEqual(['before\n']);
    expect(w.heard).toEqual([`${name} closed (${code})`]);
    expect(w.output.lost()).toBe(lost);
    expect(w.stderr.written.filter((t) => t.startsWith('error:'))).toEqual(said);
  });

  it('a failure after unsubscribing is not heard, and the other stream keeps writing', () => {
    const w = world();
    w.unsubscribe();
    w.stdout.fail('EPIPE');
    w.output.stderr.write('still here\n');
    expect(w.heard).toEqual([]);
    expect(w.stderr.written).toEqual(['still here\n']);
  });

  it('keeps the terminal flag of the stream it guards (the colour of the output depends on it)', () => {
    const tty = Object.assign(new FakeStream(), { isTTY: true });
    const pipe = new FakeStream();
    const output = guardOutput({ stdout: pipe, stderr: tty });
    expect(output.stderr.isTTY).toBe(true);
    expect(output.stdout.isTTY).toBeUndefined();
  });
});
