// Scenario: `npm run synth` with a bad context value (a new user's typo in cdk.json or -c) prints every problem as
// plain `error:` lines and exits 1; before, Node printed the SettingsError with its stack trace and internals.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { synthApp } from '../../infra/synth-app.ts';
import { REPO_ROOT } from '../helpers/cli-run.ts';

const outdir = mkdtempSync(join(tmpdir(), 'opsman-synth-errors-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const BAD = { 'aws:cdk:bundling-stacks': [], mode: 'aply', noSuccessHours: 0 };
const EXPECTED =
  'error: invalid CDK context (cdk.json, or -c key=value) (CONTEXT_INVALID):\n' +
  '  - noSuccessHours must be a whole number from 1 to 24\n' +
  '  - mode must be observe, plan or apply; got "aply"\n';

describe('synthApp', () => {
  it('lists every context problem, one per line, and returns 1', () => {
    let written = '';
    const code = synthApp(new App({ outdir, context: BAD }), (text) => {
      written += text;
    });
    expect(code).toBe(1);
    expect(written).toBe(EXPECTED);
  });

  it('says the same for a bad stack name', () => {
    let written = '';
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], stackName: '1stack' } });
    expect(synthApp(app, (text) => (written += text))).toBe(1);
    expect(written).toContain('  - stackName must start with a letter');
  });

  it('is what the CDK app prints: no stack trace, exit 1', async () => {
    // cdk synth runs `npx tsx infra/app.ts` with the context in CDK_CONTEXT_JSON.
    const run = promisify(execFile);
    const tsx = join(REPO_ROOT, 'node_modules/.bin/tsx');
    const env = { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(BAD), CDK_OUTDIR: outdir };
    const failure = await run(tsx, ['infra/app.ts'], { cwd: REPO_ROOT, env }).then(
      () => undefined,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toBe(EXPECTED);
  });
});
