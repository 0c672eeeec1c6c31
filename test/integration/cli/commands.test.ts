// Scenario: the real binary against an in-process emulator: validate, plan --json, detailed exit codes around an
// apply, apply --auto-approve, saved plans (applied, then refused as stale), --project filtering, approval refusal.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../emulator/index.ts';
import type { Plan } from '../../../lambdas/core/model.ts';
import { REPO_ROOT, runBinary, toolEnv } from '../../helpers/cli-run.ts';

const PAYMENTS_PROD = '5e2211c17a3e5a48f5497de3';
const SEARCH_PROD = '5e2211c17a3e5a48f5497de5';

let emulator: { url: string; close(): Promise<void> };
let dir: string;
let common: string[];

beforeEach(async () => {
  // A space in every path: the commands the CLI suggests must survive a shell.
  dir = await mkdtemp(join(tmpdir(), 'cli int-'));
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
  common = ['--state-dir', join(dir, 'state'), '--secrets-file', join(REPO_ROOT, 'desired-state/local-secrets.json')];
});

/** The words a POSIX shell splits `command` into (sh prints each one on its own line). */
function shellSplit(command: string): string[] {
  return execFileSync('sh', ['-c', `printf '%s\\n' ${command}`], { encoding: 'utf8' })
    .split('\n')
    .slice(0, -1);
}

afterEach(async () => {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('opsman-gitops against the emulator', { timeout: 120_000 }, () => {
  it('validate on the example: exit 0, one summary line, no API needed', async () => {
    const run = await runBinary(['validate']);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^Valid: loaded \d+ projects, \d+ organizations, .*\n$/);
  });

  it('plan --json prints only the plan value on stdout, progress on stderr', async () => {
    const run = await runBinary(['plan', '--json', ...common], toolEnv(emulator.url));
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    // The literal, not PLAN_FORMAT_VERSION: a change of the plan's format is a decision, never a side effect.
    expect(plan.formatVersion).toBe(2);
    expect(plan.mode).toBe('plan');
    expect(plan.changes.some((c) => c.action === 'create' && c.target.id === PAYMENTS_PROD)).toBe(true);
    expect(plan.changes.some((c) => c.action === 'adopt')).toBe(true);
    expect(run.stderr).toContain('planned payments-prod');
  });

  it('plan --detailed-exitcode is 2 before apply --auto-approve and 0 after it', async () => {
    const only = ['--project', PAYMENTS_PROD];
    const before = await runBinary(['plan', '--detailed-exitcode', ...only, ...common], toolEnv(emulator.url));
    expect(before.code, `${before.stdout}\n${before.stderr}`).toBe(2);
    expect(before.stdout).toMatch(/Plan: [1-9]\d* to create/);

    const apply = await runBinary(['apply', '--auto-approve', ...only, ...common], toolEnv(emulator.url));
    expect(apply.stderr).toBe(apply.stderr.replace(/error:/g, ''));
    expect(apply.code, `${apply.stdout}\n${apply.stderr}`).toBe(0);
    expect(apply.stdout).toMatch(/Apply complete: [1-9]\d* applied, 0 failed, 0 skipped, 0 not converging, 0 blocked/);
    expect(apply.stdout).toMatch(/Report: .*reports\/\d{4}-\d{2}-\d{2}\/[^/]+\.json/);

    const after = await runBinary(['plan', '--detailed-exitcode', ...only, ...common], toolEnv(emulator.url));
    expect(after.code, `${after.stdout}\n${after.stderr}`).toBe(0);
    expect(after.stdout).toContain('No changes. Ops Manager matches the desired state.');
    expect(after.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked');

    // Saving a plan that writes nothing does not tell the user to apply it (as terraform).
    const file = join(dir, 'nothing.json');
    const saved = await runBinary(['plan', '--out', file, ...only, ...common], toolEnv(emulator.url));
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stderr).toContain(`Saved the plan to ${file}: it has no changes, so there is nothing to apply`);
    expect(saved.stderr).not.toContain('apply it with');
  });

  it('--project limits the plan to that project and skips organizations', async () => {
    const run = await runBinary(['plan', '--json', '--project', SEARCH_PROD, ...common], toolEnv(emulator.url));
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const plan = JSON.parse(run.stdout) as Plan;
    expect(plan.changes.length).toBeGreaterThan(0);
    expect(new Set(plan.changes.map((c) => `${c.target.type}:${c.target.id}`))).toEqual(
      new Set([`project:${SEARCH_PROD}`]),
    );
  });

  it('a saved plan applies without a prompt, and is refused once Ops Manager moved', async () => {
    const file = join(dir, 'plan.json');
    const only = ['--project', PAYMENTS_PROD];
    const saved = await runBinary(['plan', '--out', file, ...only, ...common], toolEnv(emulator.url));
    expect(saved.code, `${saved.stdout}\n${saved.stderr}`).toBe(0);
    expect(saved.stderr).toContain(`Saved the plan to ${file}`);
    // The suggested command keeps the secrets and the state of the plan run: followed literally (as a POSIX shell
    // splits it: the paths have a space), it works.
    const suggested = /apply it with `(opsman-gitops [^`]+)`/.exec(saved.stderr)?.[1] ?? '';
    const words = shellSplit(suggested);
    expect(words).toEqual([
      'opsman-gitops',
      'apply',
      '--plan',
      file,
      '--secrets-file',
      common[3],
      '--state-dir',
      common[1],
    ]);
    const plan = JSON.parse(await readFile(file, 'utf8')) as Plan;
    expect(plan.changes.length).toBeGreaterThan(0);

    const applied = await runBinary(words.slice(1), toolEnv(emulator.url));
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toMatch(/Apply complete: [1-9]\d* applied, 0 failed/);

    const again = await runBinary(['apply', '--plan', file, ...common], toolEnv(emulator.url));
    expect(again.code, `${again.stdout}\n${again.stderr}`).toBe(1);
    expect(again.stderr, again.stderr).toMatch(/^error: .*(stale|changed|moved|no longer)/im);
  });

  it('a saved plan is private and sealed: edited, or applied to another Ops Manager or state dir, it is refused', async () => {
    const file = join(dir, 'plan.json');
    const only = ['--project', PAYMENTS_PROD];
    const saved = await runBinary(['plan', '--out', file, ...only, ...common], toolEnv(emulator.url));
    expect(saved.code, `${saved.stdout}\n${saved.stderr}`).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    const plan = JSON.parse(text) as Plan & { savedFor: { baseUrl: string; mac: string; madeBy: unknown } };
    expect(plan.savedFor.baseUrl).toBe(emulator.url);

    // Edited: one more delete (of a config the tool does not own) and the digest of its project dropped, so that
    // nothing would re-read it. Before the seal, this deleted Ops Manager's default alert.
    const victim = plan.unmanaged?.find((u) => u.kind === 'alertConfig');
    expect(victim).toBeDefined();
    const target = (victim as NonNullable<typeof victim>).target;
    const edited = {
      ...plan,
      // Well-formed (a malformed one is refused by the shape check first): only the seal can tell.
      changes: [
        ...plan.changes,
        { target, kind: 'alertConfig', key: 'x', action: 'delete', id: victim?.id, fields: [], reason: 'x' },
      ],
    };
    const editedFile = join(dir, 'edited.json');
    await writeFile(editedFile, JSON.stringify(edited));
    const tampered = await runBinary(['apply', '--plan', editedFile, ...common], toolEnv(emulator.url));
    expect(tampered.code, tampered.stderr).toBe(1);
    expect(tampered.stderr).toContain('its seal does not match: the file was edited since it was saved');
    // A duplicated key (JSON.parse keeps the last value) is an edit too.
    const duplicated = text.replace('"mode": "plan",', '"mode": "plan", "mode": "apply",');
    expect(duplicated).not.toBe(text);
    await writeFile(editedFile, duplicated);
    expect((await runBinary(['apply', '--plan', editedFile, ...common], toolEnv(emulator.url))).stderr).toContain(
      'its seal does not match',
    );

    // Made by another build (a plan file from another checkout or release): refused by name before anything is read.
    const printed = /^opsman-gitops (\S+) \(sources ([0-9a-f]{16})\)$/.exec(
      (await runBinary(['--version'])).stdout.trim(),
    );
    const version = printed?.[1] ?? 'not printed';
    expect(plan.savedFor).toMatchObject({ madeBy: { version, sources: printed?.[2] } });
    const fromOther = {
      ...plan,
      savedFor: { ...plan.savedFor, madeBy: { version: '0.0.9', sources: 'a'.repeat(16) } },
    };
    await writeFile(editedFile, JSON.stringify(fromOther));
    const other = await runBinary(['apply', '--plan', editedFile, ...common], toolEnv(emulator.url));
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      new RegExp(
        `was made by opsman-gitops 0\\.0\\.9 \\(sources a{16}\\); this is opsman-gitops ${version.replaceAll('.', '\\.')} \\(sources [0-9a-f]{16}\\): a saved plan applies only with the version that made it; nothing was written: make a new plan`,
      ),
    );

    // Made by an earlier release, in the plan format before this one (saved, then opsman-gitops upgraded): refused as
    // older, with the way out, whatever else is in it.
    const fromOlder = {
      ...plan,
      formatVersion: 1,
      savedFor: { ...plan.savedFor, madeBy: { version: '0.0.9', sources: 'a'.repeat(16) } },
    };
    await writeFile(editedFile, JSON.stringify(fromOlder));
    const older = await runBinary(['apply', '--plan', editedFile, ...common], toolEnv(emulator.url));
    expect(older.code).toBe(1);
    expect(older.stderr).toMatch(
      new RegExp(
        `was made by an older version of opsman-gitops \\(opsman-gitops 0\\.0\\.9 \\(sources a{16}\\)\\): it has plan formatVersion 1; this is opsman-gitops ${version.replaceAll('.', '\\.')} \\(sources [0-9a-f]{16}\\), which reads formatVersion 2; nothing was written: make a new plan with this version \\(\`plan --out\`\\)`,
      ),
    );
    expect(older.stderr).not.toContain('newer version');

    const elsewhere = ['--state-dir', join(dir, 'other-state'), ...common.slice(2)];
    const otherState = await runBinary(['apply', '--plan', file, ...elsewhere], toolEnv(emulator.url));
    expect(otherState.code).toBe(1);
    expect(otherState.stderr).toContain('or it was saved with another state dir (fingerprint key)');

    const otherUrl = emulator.url.replace('127.0.0.1', 'localhost');
    const otherOm = await runBinary(['apply', '--plan', file, ...common], toolEnv(otherUrl));
    expect(otherOm.code).toBe(1);
    expect(otherOm.stderr).toContain(`was planned against ${emulator.url}, not ${otherUrl}`);

    // Nothing above wrote: the untouched plan still applies.
    const applied = await runBinary(['apply', '--plan', file, ...common], toolEnv(emulator.url));
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
  });

  it('apply without a terminal and without --auto-approve refuses and writes nothing', async () => {
    const run = await runBinary(['apply', ...common], toolEnv(emulator.url));
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stderr).toContain('apply needs approval: no terminal to ask on');
    const after = await runBinary(
      ['plan', '--detailed-exitcode', '--project', PAYMENTS_PROD, ...common],
      toolEnv(emulator.url),
    );
    expect(after.code, `${after.stdout}\n${after.stderr}`).toBe(2);
  });

  it('plan --markdown renders a pull-request comment', async () => {
    const run = await runBinary(['plan', '--markdown', '--project', PAYMENTS_PROD, ...common], toolEnv(emulator.url));
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout.startsWith('### opsman-gitops plan\n')).toBe(true);
    expect(run.stdout).toContain('<details><summary><b>Project payments-prod (5e2211c17a3e5a48f5497de3)</b>');
    expect(run.stdout).toContain('```diff\n');
  });

  it('FORCE_COLOR colours the text plan in a pipe (a CI log), never the Markdown or JSON plan', async () => {
    const only = ['--project', PAYMENTS_PROD, ...common];
    const env = { ...toolEnv(emulator.url), FORCE_COLOR: '1' };
    const text = await runBinary(['plan', ...only], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('\u001b[32m');
    const markdown = await runBinary(['plan', '--markdown', ...only], env);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toContain('```diff\n');
    expect(markdown.stdout).not.toContain('\u001b[');
    const json = await runBinary(['plan', '--json', ...only], env);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toContain('\u001b[');
    expect((JSON.parse(json.stdout) as Plan).mode).toBe('plan');
  });

  it('the binary refuses an option the command does not use (exit 2) and prints a --json failure as JSON', async () => {
    const refused = await runBinary(['apply', '--out', join(dir, 'plan.json'), ...common], toolEnv(emulator.url));
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      "error: apply does not take --out: apply does not write a plan; use `plan --out FILE`, then `apply --plan FILE`\nRun 'opsman-gitops apply --help' for usage.\n",
    );
    await mkdir(join(dir, 'bad'));
    await copyFile(join(REPO_ROOT, 'test/fixtures/desired/broken/bad-enums.yaml'), join(dir, 'bad', 'bad-enums.yaml'));
    const invalid = await runBinary(
      ['plan', '--json', '--desired', join(dir, 'bad'), ...common],
      toolEnv(emulator.url),
    );
    expect(invalid.code).toBe(1);
    const doc = JSON.parse(invalid.stdout) as { ok: boolean; error: { code: string }; issues: { file: string }[] };
    expect(doc).toMatchObject({ ok: false, error: { code: 'DESIRED_STATE_INVALID' } });
    expect(new Set(doc.issues.map((i) => i.file))).toEqual(new Set(['bad-enums.yaml']));
  });

  it('wrong credentials fail every target with one clear reason, exit 1, and the key is never echoed', async () => {
    const run = await runBinary(
      ['plan', '--project', PAYMENTS_PROD, ...common],
      toolEnv(emulator.url, { OPSMAN_PRIVATE_KEY: 'not-the-key-00000000' }),
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout).toContain('Failures:\n  x Project payments-prod (5e2211c17a3e5a48f5497de3) [read]:');
    expect(run.stdout).toContain('OPSMAN_AUTH_ERROR');
    // What to change, in the user's words: the two variables that hold the key.
    expect(run.stdout).toContain('after one Digest challenge; check OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY (401 ');
    expect(run.stdout + run.stderr).not.toContain('not-the-key-00000000');
  });
});
