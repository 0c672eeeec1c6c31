// Scenario: a warning of the Ops Manager client reaches stderr inert, one line, whatever characters it holds.
import { describe, expect, it } from 'vitest';
import { warningSink } from '../../../lambdas/cli/context.ts';

describe('warningSink', () => {
  it.each([
    ['plain text as it is', 'WARNING: TLS verification is DISABLED', 'WARNING: TLS verification is DISABLED\n'],
    ['an ESC sequence as escapes', 'bad \u001b[2J path', 'bad \\u001b[2J path\n'],
    ['a bidi override and a zero-width space', 'a\u202eb\u200bc', 'a\\u202eb\\u200bc\n'],
    ['a newline inside it, so it stays one line', 'one\ntwo', 'one\\u000atwo\n'],
  ])('writes %s', (_what, message, expected) => {
    const written: string[] = [];
    warningSink({ write: (text: string) => written.push(text) > 0 })(message);
    expect(written).toEqual([expected]);
  });
});
