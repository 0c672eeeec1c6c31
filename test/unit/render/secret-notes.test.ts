// Scenario: every note the planner gives a secret field reads as its own words, worded for the write that carries it.
import { describe, expect, it } from 'vitest';
import type { ChangeAction, SecretNote } from '../../../lambdas/core/model.ts';
import { secretNote } from '../../../lambdas/core/render/values.ts';

describe('secretNote', () => {
  it.each<[SecretNote, ChangeAction, string]>([
    ['changed', 'update', '(secret changed)'],
    ['removed on live', 'update', '(secret removed on live)'],
    ['added', 'update', '(secret added)'],
    ['set on live, not in desired', 'update', '(secret set on live, not in desired)'],
    ['changed on live', 'drift', '(secret changed on live)'],
    ['set', 'adopt', '(secret, will be sent on adoption)'],
    ['set', 'update', '(secret, will be sent with the update)'],
    // Nothing is written: no promise that it will be sent.
    ['set', 'blocked', '(secret)'],
    ['set', 'drift', '(secret)'],
  ])('%s in a %s reads %s', (note, action, text) => {
    expect(secretNote(note, action)).toBe(text);
  });

  it('a note nothing produces (an older saved plan) reads as the bare placeholder, never as a guess', () => {
    // 'removed' was rendered `(secret removed)`, but no planner ever wrote it: the case is gone with the dead code.
    expect(secretNote('removed')).toBe('(secret)');
    expect(secretNote('toString')).toBe('(secret)');
    expect(secretNote(undefined)).toBe('(secret)');
  });
});
