// Scenario: `echo yes | opsman-gitops apply` on a terminal: stderr is a terminal but stdin is a pipe, so no human
// answers the question. The apply is refused before any API call, as README's "Approval and saved plans" says
// ("Neither a terminal nor --auto-approve: refused"), instead of reading the piped "yes" as an approval.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/cli-run.ts';
import { HAS_SCRIPT } from '../../helpers/cli-terminal.ts';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe.skipIf(!HAS_SCRIPT)('apply with a piped stdin on a terminal', { timeout: 60_000 }, () => {
  it('refuses (exit 1, nothing asked) instead of taking the piped "yes" as the approval', async () => {
    dir = await mkdtemp(join(tmpdir(), 'piped-approval-'));
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
    // Port 9 (discard): were the run to go on to plan, it could reach no Ops Manager; the refusal comes first.
    const args = ['apply', '--state-dir', join(dir, 'state'), '--base-url', 'http://127.0.0.1:9/api/public/v1.0'];
    const command = `echo yes | exec ${[process.execPath, 'bin/opsman-gitops.mjs', ...args].map(quote).join(' ')}`;
    const terminal = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'dumb' },
    });
    terminal.stdin.end();
    let output = '';
    terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => terminal.on('close', resolve));
    expect(output).toContain('apply needs approval: no terminal to ask on');
    expect(output).not.toContain('Do you want to apply these changes?');
    expect(code).toBe(1);
  });
});
