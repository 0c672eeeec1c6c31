// Scenario: the real binary keeps its process contract where the in-process runCli cannot show it: `help emulator`
// prints the emulator's own help (bin/main.ts routes it) and, like emulator --help, survives a full disk or a closed
// pipe without a stack trace; a bare invocation's help is a diagnostic on stderr.
import { describe, expect, it } from 'vitest';
import { runBinary } from '../../helpers/cli-run.ts';

describe('opsman-gitops, the binary', { timeout: 60_000 }, () => {
  it('help emulator, --help emulator and -h emulator print what emulator --help prints: its own options', async () => {
    const own = await runBinary(['emulator', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('--port PORT');
    for (const argv of [
      ['help', 'emulator'],
      ['--help', 'emulator'],
      ['-h', 'emulator'],
    ]) {
      const run = await runBinary(argv);
      expect({ argv, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        argv,
        code: 0,
        stdout: own.stdout,
        stderr: '',
      });
    }
  });

  it.each([
    { argv: ['help', 'emulator'], name: 'help emulator' },
    { argv: ['emulator', '--help'], name: 'emulator --help' },
  ])('$name into a full disk or a closed pipe: one line or none, never a stack trace', async ({ argv }) => {
    const full = await runBinary(argv, {}, undefined, [], { stdoutFile: '/dev/full' });
    expect(full.code).toBe(1);
    expect(full.stderr).toBe('error: cannot write to stdout: ENOSPC: no space left on device, write\n');
    // The reader went away (`| head -0`): nobody is left to tell, and what was asked for was printed as far as wanted.
    const closed = await runBinary(argv, {}, undefined, [], { closeReader: 'stdout' });
    expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('no command at all: the help on stderr, nothing on stdout, exit 2', async () => {
    const run = await runBinary([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: opsman-gitops <command> [options]');
  });
});
