// Whether a command's output is coloured: the flag, NO_COLOR, FORCE_COLOR, the terminal and TERM decide together.
import { describe, expect, it } from 'vitest';
import { commandContext } from '../../../lambdas/cli/context.ts';
import { parseInvocation } from '../../../lambdas/cli/options.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';

function coloured(argv: string[], env: Record<string, string>, tty: boolean): boolean {
  const { options } = parseInvocation(argv, env);
  const context = commandContext(options, recordingIo({ env, tty }), noEmulator);
  return context.style.create('x') !== 'x';
}

describe('commandContext: colour', () => {
  it.each([
    ['a terminal', ['plan'], {}, true, true],
    ['a pipe', ['plan'], {}, false, false],
    ['a dumb terminal', ['plan'], { TERM: 'dumb' }, true, false],
    ['a terminal with NO_COLOR', ['plan'], { NO_COLOR: '1' }, true, false],
    ['a terminal with --no-color', ['plan', '--no-color'], {}, true, false],
    ['a pipe with FORCE_COLOR (a CI log)', ['plan'], { FORCE_COLOR: '1' }, false, true],
    ['a dumb terminal with FORCE_COLOR', ['plan'], { FORCE_COLOR: '1', TERM: 'dumb' }, true, true],
    ['FORCE_COLOR over NO_COLOR', ['plan'], { FORCE_COLOR: '1', NO_COLOR: '1' }, false, true],
    ['--no-color over FORCE_COLOR', ['plan', '--no-color'], { FORCE_COLOR: '1' }, false, false],
    ['a terminal with FORCE_COLOR=0', ['plan'], { FORCE_COLOR: '0' }, true, false],
    ['a terminal with FORCE_COLOR=false', ['plan'], { FORCE_COLOR: 'false' }, true, false],
    ['a pipe with an empty FORCE_COLOR', ['plan'], { FORCE_COLOR: '' }, false, false],
  ] as const)('%s', (_what, argv, env, tty, expected) => {
    expect(coloured([...argv], { ...env }, tty)).toBe(expected);
  });
});
