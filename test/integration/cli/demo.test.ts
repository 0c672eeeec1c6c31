// Scenario: `opsman-gitops demo` (npm start) end to end: exit 0, every section, zero changes after apply, the drift
// attributed to jdoekey1; then no secret value or private key in its output, state, reports or archive. The temp dir
// it runs under has a space and a quote in its name (a macOS or Windows-style TMPDIR, a user's own choice).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BinaryRun, KEYS, REPO_ROOT, runBinary } from '../../helpers/cli-run.ts';

let dir: string;
let run: BinaryRun;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli demo it's-"));
  // The demo makes its working directory under the OS temp dir: point that at ours, so nothing is left behind.
  run = await runBinary(['demo'], { TMPDIR: dir });
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('opsman-gitops demo', () => {
  it('exits 0 and says it completed', () => {
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Demo complete.');
    expect(run.stdout).not.toContain('UNEXPECTED');
  });

  it('prints every numbered section in order', () => {
    const titles = [...run.stdout.matchAll(/^== (\d+)\. (.+) ==$/gm)].map((m) => Number(m[1]));
    expect(titles).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const text of [
      'Validate',
      'Plan:',
      'Apply',
      'Plan again',
      'by hand',
      'Observe',
      'Apply again',
      'Archive',
      'Where',
    ]) {
      expect(run.stdout).toContain(text);
    }
  });

  it('shows the emulator URL and a copy-paste curl line', () => {
    expect(run.stdout).toMatch(/Ops Manager emulator \(example seed\): http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0/);
    expect(run.stdout).toMatch(
      /curl --digest -u roviewer:\S+ 'http:\/\/127\.0\.0\.1:\d+\/api\/public\/v1\.0\/groups\/5e2211c17a3e5a48f5497de3\/alertConfigs'/,
    );
  });

  it('the second plan has zero changes', () => {
    const second = run.stdout.split('== 4. ')[1]?.split('== 5. ')[0] ?? '';
    expect(second).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked');
    expect(second).toContain('ok: zero changes');
  });

  it('the drift is attributed to jdoekey1 and corrected', () => {
    const observe = run.stdout.split('== 6. ')[1]?.split('== 7. ')[0] ?? '';
    expect(observe).toMatch(/changed by jdoekey1 \(API key\) at \d{4}-\d{2}-\d{2}T/);
    const corrective = run.stdout.split('== 7. ')[1]?.split('== 8. ')[0] ?? '';
    expect(corrective).toMatch(/Apply complete: [1-9]\d* applied, 0 failed/);
  });

  it('archives the manifest and the usage, and says where the reports are', () => {
    expect(run.stdout).toMatch(/Version manifest: sha256 [0-9a-f]{12}/);
    expect(run.stdout).toMatch(/Usage \d{4}-\d{2}: \d+ snapshots/);
    expect(run.stdout).toMatch(/^Report: {2}.*\/reports\/\d{4}-\d{2}-\d{2}\/.+\.json$/m);
  });

  it('the cleanup line, as a POSIX shell reads it, names the working directory and nothing else', () => {
    const work = /^Working directory \(state, archive, emulator data\): (.+)$/m.exec(run.stdout)?.[1];
    expect(work?.startsWith(join(dir, 'opsman-gitops-demo-'))).toBe(true);
    const line = /^Remove it all with: rm -rf (.+)$/m.exec(run.stdout)?.[1] ?? '';
    // The shell prints the words rm would have received, one per line.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' });
    expect(words).toBe(`${work}\n`);
  });

  it('no secret value or private key appears in stdout, stderr, state, reports or archive', async () => {
    const secrets = JSON.parse(await readFile(join(REPO_ROOT, 'desired-state/local-secrets.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    const forbidden = [
      ...Object.values(secrets).flatMap((inner) => Object.values(inner)),
      KEYS.tool.privateKey,
      KEYS.human.privateKey,
    ];
    expect(forbidden.length).toBeGreaterThan(5);
    // The emulator's data file is Ops Manager's own database (it must hold the webhook secrets): not ours to scan.
    // tsx's compile cache also lands under TMPDIR: only the demo's own working directory is output of the demo.
    const files = (await filesUnder(dir)).filter(
      (f) => f.includes('/opsman-gitops-demo-') && !f.endsWith('emulator-data.json'),
    );
    expect(files.some((f) => f.endsWith('state.json'))).toBe(true);
    expect(files.some((f) => f.includes('/reports/'))).toBe(true);
    const texts: [string, string][] = [
      ['stdout', run.stdout],
      ['stderr', run.stderr],
      ...(await Promise.all(files.map(async (f): Promise<[string, string]> => [f, await readFile(f, 'latin1')]))),
    ];
    for (const [where, text] of texts) {
      for (const value of forbidden) {
        if (text.includes(value)) throw new Error(`${where} contains a secret value or private key`);
      }
    }
  });
});
