// Scenario: a malformed OPSMAN_FINGERPRINT_KEY is a setting given wrong: the real binary exits 2 with a message that
// names the variable, says what it must be and how to make one, never echoes the value, and touches no file (the
// state directory is not created); a good one is used.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-fp-key-'));
});

afterEach(() => rm(dir, { recursive: true, force: true }));

describe('OPSMAN_FINGERPRINT_KEY', { timeout: 60_000 }, () => {
  it.each([
    [
      'too short',
      'c0ffee00c0ffee00',
      /^error: OPSMAN_FINGERPRINT_KEY is 8 bytes; at least 16 are needed: set it to hex or base64/m,
    ],
    ['neither hex nor base64', 'not a key!', /^error: OPSMAN_FINGERPRINT_KEY is neither hex nor base64: set it to/m],
  ])('%s: exit 2 before any file or request', async (_name, value, message) => {
    const state = join(dir, 'state');
    const run = await runBinary(
      ['plan', '--state-dir', state, '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')],
      toolEnv('http://127.0.0.1:9/api/public/v1.0', { OPSMAN_FINGERPRINT_KEY: value }),
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('openssl rand -hex 32');
    expect(run.stderr).not.toContain(value);
    expect(await readdir(dir)).toEqual([]);
  });

  it('empty: as if unset, not a setting given wrong (no exit 2 naming it)', async () => {
    const state = join(dir, 'state');
    const run = await runBinary(
      ['plan', '--state-dir', state, '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')],
      toolEnv('http://127.0.0.1:9/api/public/v1.0', { OPSMAN_FINGERPRINT_KEY: '' }),
    );
    expect(run.stderr).not.toContain('OPSMAN_FINGERPRINT_KEY');
    expect(run.code, run.stderr).not.toBe(2);
  });
});
