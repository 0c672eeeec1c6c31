// Scenario: a --json run that fails before it has a plan or report prints one JSON failure document on stdout (the
// validation issues with file/line/column/message when the desired state is invalid), with the same exit code as
// without --json and the same words on stderr; the private key never reaches it.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wantsJson } from '../../../lambdas/cli/json-failure.ts';
import { runCli } from '../../../lambdas/cli/main.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';

// fileURLToPath, not .pathname: a clone path with a space or non-ASCII letters is percent-encoded in a URL.
const EXAMPLE = fileURLToPath(new URL('../../../desired-state/', import.meta.url));
// The base URL points nowhere: every failure below happens before any API call.
const CREDS = {
  OPSMAN_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0',
  OPSMAN_PUBLIC_KEY: 'gitopsbt',
  OPSMAN_PRIVATE_KEY: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
};
const BROKEN =
  'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  name: x\n  projectId: nothex\nspec:\n  mode: yolo\n';

interface Failure {
  ok: false;
  error: { code: string; message: string };
  issues?: { file: string; line: number; column: number; path: string; message: string }[];
}

async function run(argv: string[], env: Record<string, string> = CREDS) {
  const io = recordingIo({ env });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-json-failure-'));
  await mkdir(join(dir, 'broken'));
  await writeFile(join(dir, 'broken', 'p.yaml'), BROKEN);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an invalid desired state', () => {
  const ISSUES = [
    {
      file: 'p.yaml',
      line: 5,
      column: 14,
      path: 'metadata.projectId',
      message: expect.stringMatching(/^metadata\.projectId must be a project id/),
    },
    {
      file: 'p.yaml',
      line: 7,
      column: 9,
      path: 'spec.mode',
      message: 'spec.mode must be one of observe, plan, apply; found "yolo"',
    },
  ];

  it.each([['plan'], ['observe'], ['archive'], ['apply', '--auto-approve']])(
    '%s --json: the issues on stdout as JSON, exit 1, and still in words on stderr',
    async (...command) => {
      const broken = join(dir, 'broken');
      const { code, out, err } = await run([...command, '--json', '--desired', broken]);
      const plain = await run([...command, '--desired', broken]);
      expect(code).toBe(1);
      expect(plain.code).toBe(code);
      expect(plain.out).toBe('');
      const doc = JSON.parse(out) as Failure;
      expect(doc).toEqual({
        ok: false,
        error: {
          code: 'DESIRED_STATE_INVALID',
          message: `the desired state in ${broken} is invalid; nothing was sent to Ops Manager`,
        },
        issues: ISSUES.map((i) => expect.objectContaining(i)),
      });
      expect(err).toBe(plain.err);
      expect(err).toContain('p.yaml:7:9: spec.mode must be one of observe, plan, apply; found "yolo"');
    },
  );

  it('validate --json prints the same shape', async () => {
    const { code, out } = await run(['validate', '--json', '--desired', join(dir, 'broken')]);
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({
      ok: false,
      error: { code: 'DESIRED_STATE_INVALID', message: `the desired state in ${join(dir, 'broken')} is invalid` },
      issues: ISSUES.map((i) => expect.objectContaining(i)),
    });
  });
});

describe('every other failure of a --json run', () => {
  it.each([
    {
      name: 'a missing desired directory',
      argv: ['plan', '--json', '--desired', '/nonexistent/desired'],
      exit: 1,
      code: 'CLI_NO_DIRECTORY',
      message: "--desired '/nonexistent/desired' does not exist",
    },
    {
      name: 'a missing secrets file',
      argv: ['observe', '--json', '--desired', EXAMPLE, '--secrets-file', '/nonexistent/s.json'],
      exit: 1,
      code: 'SECRETS_FILE_NOT_FOUND',
      message: 'secrets file /nonexistent/s.json cannot be read: /nonexistent does not exist (ENOENT)',
    },
    {
      name: 'a project the desired state lacks',
      argv: ['plan', '--json', '--desired', EXAMPLE, '--project', 'ffffffffffffffffffffffff'],
      exit: 1,
      code: 'UNKNOWN_PROJECT',
      message: expect.stringMatching(
        /^project ffffffffffffffffffffffff asked for \(--project\) but not in the desired state/,
      ),
    },
    {
      name: 'a usage error',
      argv: ['apply', '--json', '--desired', EXAMPLE],
      exit: 2,
      code: 'CLI_USAGE',
      message: expect.stringMatching(/^apply --json cannot ask for approval/),
    },
    {
      name: 'a switch given a value',
      argv: ['plan', '--json=false', '--desired', EXAMPLE],
      exit: 2,
      code: 'CLI_USAGE',
      message: '--json takes no value',
    },
    {
      name: 'a usage error after an option whose value names another command',
      argv: ['--out', 'schema', 'plan', '--json', '--bogus'],
      exit: 2,
      code: 'CLI_USAGE',
      message: 'unknown option --bogus',
    },
    {
      name: 'a misspelt command',
      argv: ['plna', '--json', '--desired', EXAMPLE],
      exit: 2,
      code: 'CLI_USAGE',
      message: "unknown command 'plna' (did you mean 'plan'?)",
    },
    {
      name: 'missing credentials',
      argv: ['plan', '--json', '--desired', EXAMPLE],
      env: { OPSMAN_BASE_URL: CREDS.OPSMAN_BASE_URL },
      exit: 2,
      code: 'CLI_USAGE',
      message: 'plan talks to Ops Manager and needs OPSMAN_PUBLIC_KEY, OPSMAN_PRIVATE_KEY',
    },
  ])('$name: {ok: false, error} on stdout, exit $exit', async ({ argv, env, exit, code, message }) => {
    const run1 = await run(argv, env);
    expect(run1.code).toBe(exit);
    expect(JSON.parse(run1.out)).toEqual({ ok: false, error: { code, message } });
    expect(run1.err).toMatch(/^error: /);
  });

  it('without --json, stdout stays empty', async () => {
    const { code, out } = await run(['plan', '--desired', '/nonexistent/desired']);
    expect(code).toBe(1);
    expect(out).toBe('');
  });

  it('never carries the private key (redacted like stderr)', async () => {
    const file = join(dir, `${CREDS.OPSMAN_PRIVATE_KEY}.json`);
    const { code, out, err } = await run(['plan', '--json', '--desired', EXAMPLE, '--secrets-file', file]);
    expect(code).toBe(1);
    expect(out + err).not.toContain(CREDS.OPSMAN_PRIVATE_KEY);
    expect((JSON.parse(out) as Failure).error.message).toContain('(redacted).json');
  });
});

describe('wantsJson', () => {
  it.each([
    [['plan', '--json'], true],
    [['--json', 'validate'], true],
    [['--desired', 'ds', 'observe', '--json'], true],
    [['plan'], false],
    [['schema', '--json'], false],
    [['unlock', 'r1', '--json'], false],
    [['plan', '--', '--json'], false],
    [['--json'], false],
    // A refused --json=VALUE still asked for JSON; an option's value that names a command is not the command.
    [['plan', '--json=1'], true],
    [['--out', 'schema', 'plan', '--json'], true],
    [['--desired', 'plan', 'schema', '--json'], false],
    // A command this version does not have may well be one that prints JSON: the pipe gets its document.
    [['plna', '--json'], true],
    [['diff', '--json=1'], true],
    [['plna'], false],
  ])('%j -> %s', (argv, expected) => {
    expect(wantsJson(argv)).toBe(expected);
  });
});
