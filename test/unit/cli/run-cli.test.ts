// Scenario: runCli in-process: help, usage errors (exit 2), validate and schema without Ops Manager, apply's refusals.
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../lambdas/cli/commands-table.ts';
import { redactCredentials, runCli, withCode } from '../../../lambdas/cli/main.ts';
import {
  buildSnapshotManifest,
  SNAPSHOT_FILE,
  snapshotManifestText,
} from '../../../lambdas/core/desired/snapshot-manifest.ts';
import { PLAN_FORMAT_VERSION } from '../../../lambdas/core/model.ts';
import { noEmulator, recordingIo } from '../../helpers/cli-io.ts';

// fileURLToPath, not .pathname: a clone path with a space or non-ASCII letters is percent-encoded in a URL.
const EXAMPLE = fileURLToPath(new URL('../../../desired-state/', import.meta.url));
const SECRETS = join(EXAMPLE, 'local-secrets.json');
const CREDS = {
  OPSMAN_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0',
  OPSMAN_PUBLIC_KEY: 'gitopsbt',
  OPSMAN_PRIVATE_KEY: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c',
};

async function run(argv: string[], options: Parameters<typeof recordingIo>[0] = {}) {
  const io = recordingIo(options);
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('help', () => {
  it('top-level --help lists every command and exits 0', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(out).toContain(`  ${command} `);
    expect(out).toContain('Exit codes:');
  });

  it('no command prints the help on stderr (a usage error: stdout is for data) and exits 2', async () => {
    const { code, out, err } = await run([]);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain('Usage: opsman-gitops <command> [options]');
    // Asked for, the same help is the output.
    for (const argv of [['--help'], ['help']]) expect((await run(argv)).out).toBe(err);
  });

  it('a usage error quoting a value with a newline stays on one line (the newline shown as \\u000a)', async () => {
    const { code, err } = await run(['plan', '--mode', 'a\nerror: forged line']);
    expect(code).toBe(2);
    expect(err.split('\n')[0]).toBe(
      'error: --mode expects one of observe, plan, apply; found "a\\u000aerror: forged line"',
    );
    expect(err.split('\n').filter((line) => line.startsWith('error:'))).toHaveLength(1);
  });

  it.each(COMMANDS.filter((c) => c !== 'help'))('%s --help and help %s print its usage', async (command) => {
    const a = await run([command, '--help']);
    const b = await run(['help', command]);
    expect(a.code).toBe(0);
    expect(a.out).toContain(`Usage: opsman-gitops ${command}`);
    expect(b.out).toBe(a.out);
  });

  it.each(['plan', 'observe', 'apply', 'archive'])(
    '%s --help lists --request-timeout with its default',
    async (command) => {
      const { out } = await run([command, '--help']);
      expect(out).toContain(
        '  --request-timeout SECS   how long one Ops Manager request may take, retries included (default 120)\n',
      );
    },
  );

  // A shared option line must not promise what a command does not do: validate prints no plan, archive takes no lock.
  it.each([
    { command: 'validate', option: '--json', says: 'the problems, or what was loaded', never: /plan|report/ },
    { command: 'plan', option: '--json', says: 'the plan', never: /report/ },
    { command: 'archive', option: '--json', says: 'the run report', never: /plan/ },
    { command: 'archive', option: '--state-dir', says: 'takes no lock', never: /ownership|, lock/ },
    { command: 'unlock', option: '--state-dir', says: 'whose lock to remove', never: /fingerprint/ },
  ])('$command --help says what $option does for it', async ({ command, option, says, never }) => {
    const { out } = await run([command, '--help']);
    const line = out.split('\n').find((l) => l.startsWith(`  ${option} `)) ?? '';
    expect(line).toContain(says);
    expect(line).not.toMatch(never);
  });

  // The usage error of a bad value says "Run 'opsman-gitops plan --help' for usage": that help must then work, even
  // with the stale OPSMAN_BASE_URL or the bad value still there.
  it.each([
    { argv: ['plan', '--help'], env: { OPSMAN_BASE_URL: 'https://om.example.com:8443' } },
    { argv: ['archive', '-h'], env: { OPSMAN_BASE_URL: 'https://om.example.com/api/public/v1.0?x=1' } },
    { argv: ['apply', '--mode', 'aply', '--help'], env: {} },
    { argv: ['plan', '--request-timeout', '0', '--project', 'payments', '--help'], env: {} },
    { argv: ['observe', '--json', '--markdown', '--help'], env: {} },
  ])('$argv.0 --help prints its usage whatever the other values ($argv)', async ({ argv, env }) => {
    const { code, out, err } = await run(argv, { env });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`Usage: opsman-gitops ${argv[0]}`);
  });

  it('--version prints the version with a stale OPSMAN_BASE_URL', async () => {
    const { code, out } = await run(['plan', '--version'], { env: { OPSMAN_BASE_URL: 'https://om.example.com' } });
    expect(code).toBe(0);
    expect(out).toMatch(/^opsman-gitops \d+\.\d+\.\d+ \(sources [0-9a-f]{16}\)\n$/);
  });

  it('--version prints the package version and the sources digest a saved plan is pinned to', async () => {
    const { code, out } = await run(['--version']);
    expect(code).toBe(0);
    expect(out).toMatch(/^opsman-gitops \d+\.\d+\.\d+ \(sources [0-9a-f]{16}\)\n$/);
  });
});

describe('usage errors', () => {
  it.each([
    [['plan', '--nope'], /error: unknown option --nope\nRun 'opsman-gitops plan --help' for usage\.\n/],
    [['nope'], /error: unknown command 'nope'\nRun 'opsman-gitops --help' for usage\.\n/],
    // A word that is no command is never named as one whose help to read (it would itself be refused).
    [['plna', '--bogus'], /error: unknown option --bogus\nRun 'opsman-gitops --help' for usage\.\n/],
    [['--private-key', 'x', 'plan'], /in the process list\nRun 'opsman-gitops --help' for usage\.\n/],
    [['plna', '-auto-approve'], /\(--auto-approve\)\nRun 'opsman-gitops --help' for usage\.\n/],
    [['plan', '--private-key', 'x'], /credentials come from the environment only/],
    [
      ['plan', '--desired', EXAMPLE],
      /plan talks to Ops Manager and needs --base-url \(or OPSMAN_BASE_URL\), OPSMAN_PUBLIC_KEY/,
    ],
    [['--no-color', 'emulator'], /put `emulator` first/],
    // An option the command does not use is refused before anything runs (not even the credentials check).
    [
      ['apply', '--out', 'plan.json', '--auto-approve'],
      /^error: apply does not take --out: apply does not write a plan; use `plan --out FILE`, then `apply --plan FILE`\nRun 'opsman-gitops apply --help' for usage\.\n$/,
    ],
    [['plan', '--plan', 'plan.json'], /^error: plan does not take --plan: plan makes a plan and does not read one/],
    [['apply', '--markdown', '--auto-approve'], /^error: apply does not take --markdown: .*`plan --markdown`/],
    [
      ['apply', '--mode', 'aply', '--auto-approve'],
      /^error: --mode expects one of observe, plan, apply; found "aply"; did you mean "apply"\?\nRun 'opsman-gitops apply --help' for usage\.\n$/,
    ],
  ])('%j exits 2', async (argv, message) => {
    const { code, err, out } = await run(argv);
    expect(code).toBe(2);
    expect(err).toMatch(message);
    expect(out).toBe('');
  });
});

describe('a malformed API key in the environment', () => {
  // The canary must never be echoed: the message names the variable and what is wrong, not the value.
  const KEY = 'canary-7f3c2a9e-key';
  it.each([
    ['OPSMAN_PRIVATE_KEY', `${KEY}\n`, 'OPSMAN_PRIVATE_KEY ends with a newline (read from a file?): set the key alone'],
    ['OPSMAN_PRIVATE_KEY', ` ${KEY}`, 'OPSMAN_PRIVATE_KEY has white space at its start or end: set the key alone'],
    [
      'OPSMAN_PRIVATE_KEY',
      `${KEY}"`,
      'OPSMAN_PRIVATE_KEY must be printable ASCII without spaces, quotes or backslashes (as Ops Manager issues keys)',
    ],
    ['OPSMAN_PUBLIC_KEY', `${KEY}\r\n`, 'OPSMAN_PUBLIC_KEY ends with a newline (read from a file?): set the key alone'],
  ])('%s %j is a usage error naming the variable, before any request', async (name, value, message) => {
    const env = { ...CREDS, [name]: value };
    const { code, err, out } = await run(['plan', '--desired', EXAMPLE], { env });
    expect(code).toBe(2);
    expect(err).toBe(`error: ${message}\nRun 'opsman-gitops plan --help' for usage.\n`);
    expect(out).toBe('');
    expect(err).not.toContain(KEY);
  });
});

describe('error messages quote what they were given inert', () => {
  it.each([
    [['plan', '--project', 'ab\u001b[31mX\u202e'], "found 'ab\\u001b[31mX\\u202e'"],
    [['pl\u001b]0;t\u0007an'], "unknown command 'pl\\u001b]0;t\\u0007an'"],
    [
      ['validate', '--desired', '/nonexistent/d\u001b[2J\u200b'],
      "--desired '/nonexistent/d\\u001b[2J\\u200b' does not exist",
    ],
  ])('case %#: an escape, a BEL, a bidi or zero-width character in an argument', async (argv, shown) => {
    const { err } = await run(argv);
    expect(err).toContain(shown);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no escape, BEL, bidi or zero-width character reaches stderr.
    expect(err).not.toMatch(/[\u0007\u001b\u200b\u202e]/);
  });
});

describe('validate and schema (no Ops Manager)', () => {
  it('validates the example: one summary line, exit 0', async () => {
    const { code, out } = await run(['validate', '--desired', EXAMPLE]);
    expect(code).toBe(0);
    expect(out).toMatch(/^Valid: .*\d+ projects.*\n$/);
  });

  it('validate --json gives ok and the summary', async () => {
    const { code, out } = await run(['validate', '--json', '--desired', EXAMPLE]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ ok: true });
  });

  it('prints every issue with file:line:column and exits 1', async () => {
    await writeFile(
      join(dir, 'p.yaml'),
      'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  name: x\n  projectId: nothex\nspec:\n  mode: yolo\n',
    );
    const { code, out } = await run(['validate', '--desired', dir]);
    expect(code).toBe(1);
    expect(out).toMatch(/p\.yaml:\d+:\d+: /);
    // One count line, from formatIssues, and no second summary.
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^\d+ errors? in 1 file$/);
    expect(out).not.toMatch(/problems? in /);
  });

  it('a missing desired directory is a clear error, exit 1', async () => {
    const { code, err } = await run(['validate', '--desired', join(dir, 'missing')]);
    expect(code).toBe(1);
    expect(err).toBe(`error: --desired '${join(dir, 'missing')}' does not exist\n`);
  });

  // A newcomer's two mistakes: the default `desired-state/` run from another directory, and a typo in --desired. Both
  // said only "does not exist", naming neither where it was looked for nor the directory meant.
  it('a missing relative desired directory says where it was looked for, and the close name beside it', async () => {
    await mkdir(join(dir, 'desired-state'));
    const typo = relative(process.cwd(), join(dir, 'desired-stat'));
    const { code, err } = await run(['validate', '--desired', typo]);
    expect(code).toBe(1);
    expect(err).toBe(
      `error: --desired '${typo}' does not exist (looked for ${join(dir, 'desired-stat')}: a relative path is read from the current directory); did you mean '${relative(process.cwd(), join(dir, 'desired-state'))}'?\n`,
    );
    const absolute = await run(['validate', '--desired', join(dir, 'desired-stat')]);
    expect(absolute.err).toBe(
      `error: --desired '${join(dir, 'desired-stat')}' does not exist; did you mean '${join(dir, 'desired-state')}'?\n`,
    );
  });

  it('a desired directory behind a link loop is said to be one, not missing', async () => {
    const loop = join(dir, 'loop');
    await symlink(loop, loop);
    const { code, err } = await run(['validate', '--desired', loop]);
    expect(code).toBe(1);
    expect(err).toBe(`error: --desired '${loop}' cannot be read: too many levels of symbolic links (ELOOP)\n`);
  });

  it('unlock with a --state-dir that is not there says so (a typo), not "no lock is held"', async () => {
    const missing = join(dir, 'no-such-state');
    const { code, out, err } = await run(['unlock', '20990101T000000Z-000000', '--state-dir', missing]);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(`error: --state-dir '${missing}' does not exist\n`);
  });

  it('plan on an invalid desired state exits 1 before needing Ops Manager', async () => {
    await writeFile(join(dir, 'bad.yaml'), 'apiVersion: opsman-gitops/v1\nkind: Nope\n');
    const { code, err } = await run(['plan', '--desired', dir], { env: CREDS });
    expect(code).toBe(1);
    expect(err).toContain('nothing was sent to Ops Manager');
  });

  it('plan from a directory holding a snapshot manifest it does not match: in transit, exit 1, before Ops Manager', async () => {
    // An `aws s3 sync` of the bucket taken mid-upload: the manifest is the next upload's, payments.yaml still the old one.
    const desired = join(dir, 'desired');
    await cp(EXAMPLE, desired, { recursive: true });
    const files = [
      { path: 'projects/payments.yaml', bytes: Buffer.from('# the next upload\n') },
      { path: 'settings.yaml', bytes: await readFile(join(EXAMPLE, 'settings.yaml')) },
    ];
    await writeFile(join(desired, SNAPSHOT_FILE), snapshotManifestText(buildSnapshotManifest(files)));
    const argv = ['plan', '--desired', desired, '--state-dir', join(dir, 'state'), '--secrets-file', SECRETS];
    const { code, err } = await run(argv, { env: CREDS });
    expect(code).toBe(1);
    expect(err).toMatch(
      /^error: the desired state at dir:.* does not match its snapshot manifest \(\.opsman-gitops-snapshot\.json\): \d+ of \d+ files differ \(/,
    );
    expect(err).toContain('projects/payments.yaml: content differs');
    expect(err).toContain('nothing was planned or written (DESIRED_STATE_IN_TRANSIT)');
    // CREDS' base URL points nowhere: reaching it would fail differently.
    expect(err).not.toMatch(/ECONNREFUSED/);
  });

  it('schema prints the JSON Schema', async () => {
    const { code, out } = await run(['schema']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
  });
});

describe('the secrets file', () => {
  it.each([
    ['missing', null, 'cannot be read: <file> does not exist (SECRETS_FILE_NOT_FOUND, ENOENT)'],
    ['not JSON', '{"a": ', 'is not valid JSON (at line 1, column 7) (SECRETS_FILE_INVALID)'],
    ['not an object', '[1]', 'must hold a JSON object'],
  ])('%s: one error before any API call, not a blocked alert per secret', async (_case, content, message) => {
    const file = join(dir, 'secrets.json');
    if (content !== null) await writeFile(file, content);
    // CREDS' base URL points nowhere: reaching it would fail differently.
    const { code, err, out } = await run(['plan', '--desired', EXAMPLE, '--secrets-file', file], { env: CREDS });
    expect(code).toBe(1);
    expect(err).toContain(`secrets file ${file} ${message.replace('<file>', file)}`);
    expect(err).not.toMatch(/ECONNREFUSED|blocked/);
    expect(out).toBe('');
  });
});

describe('apply approval', () => {
  it('refuses without a terminal and without --auto-approve, before any API call', async () => {
    const { code, err, out } = await run(['apply', '--desired', EXAMPLE], { env: CREDS, interactive: false });
    expect(code).toBe(1);
    expect(err).toContain('apply needs approval: no terminal to ask on');
    expect(out).toBe('');
  });

  it('a missing saved plan file is a clear error', async () => {
    const { code, err } = await run(['apply', '--plan', join(dir, 'none.json')], { env: CREDS });
    expect(code).toBe(1);
    expect(err).toContain('no such file');
  });

  it('a saved plan that is not JSON is refused with where it broke, never a piece of the file', async () => {
    // A secrets file passed to --plan by mistake: the parser's own message would quote the text around the error.
    await writeFile(join(dir, 'plan.json'), '{\n  "opsman/hook": {"token": s3cr3t-v4lue}\n}\n');
    const { code, err } = await run(['apply', '--plan', join(dir, 'plan.json')], { env: CREDS });
    expect(code).toBe(1);
    expect(err).toContain('not JSON (at line 2, column 28)');
    expect(err).not.toContain('s3cr3t');
    expect(err).not.toContain('opsman/hook');
  });

  it.each([
    ['not json', /not JSON/],
    ['[]', /not a JSON object/],
    [
      `{"formatVersion":"${PLAN_FORMAT_VERSION}"}`,
      `the saved plan has formatVersion "${PLAN_FORMAT_VERSION}"; expected ${PLAN_FORMAT_VERSION}`,
    ],
    // Saved by a later release (an operator rolled back between plan and apply): named as such, with both versions.
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION + 1}}`,
      `plan.json was saved by a newer version of opsman-gitops: it has formatVersion ${PLAN_FORMAT_VERSION + 1}; this version reads formatVersion ${PLAN_FORMAT_VERSION}: apply it with the version that saved it, or make a new plan; nothing was written`,
    ],
    // Saved by an earlier release, of the plan format before it (an upgrade between plan and apply): named as older.
    [
      '{"formatVersion":1,"runId":"r","mode":"apply","desired":{},"liveDigests":{},"stateVersion":null,"changes":[],"failures":[]}',
      new RegExp(
        `plan\\.json was made by an older version of opsman-gitops: it has plan formatVersion 1; this is opsman-gitops \\S+ \\(sources [0-9a-f]{16}\\), which reads formatVersion ${PLAN_FORMAT_VERSION}; nothing was written: make a new plan with this version \\(\`plan --out\`\\)`,
      ),
    ],
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION},"runId":"r","createdAt":"t","mode":"apply","desired":{"digest":"d","files":[]},"liveDigests":{},"changes":[1],"failures":[]}`,
      'the saved plan has a malformed change (changes[0]: not an object)',
    ],
    // Saved by an earlier version: no state version to tell whether another run wrote the state since.
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION},"runId":"r","createdAt":"t","mode":"apply","desired":{"digest":"d","files":[]},"liveDigests":{},"changes":[],"failures":[]}`,
      'the saved plan does not record the state version it was made against (it was made by an earlier version of opsman-gitops); make a new plan',
    ],
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION},"runId":"r","createdAt":"t","mode":"apply","desired":{"digest":"d","files":[]},"liveDigests":{},"stateVersion":5,"changes":[],"failures":[]}`,
      'the saved plan has a stateVersion that is neither a string nor null',
    ],
    // Shape-checked by the reconciler's own check before the state dir is opened: a change apply could not carry out.
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION},"runId":"r","createdAt":"t","mode":"apply","desired":{"digest":"d","files":[]},"liveDigests":{"project:p":"x"},"stateVersion":null,"changes":[{"target":{"type":"project","id":"p","name":"n"},"kind":"alertConfig","key":"k","action":"create","fields":[],"reason":""}],"failures":[]}`,
      'plan.json is not a plan saved by `opsman-gitops plan --out`: the saved plan has a malformed change (changes[0]: create without a desired body (after))',
    ],
    [
      `{"formatVersion":${PLAN_FORMAT_VERSION},"runId":"r","createdAt":"t","mode":"destroy","desired":{"digest":"d","files":[]},"liveDigests":{},"stateVersion":null,"changes":[],"failures":[]}`,
      'mode must be one of observe, plan, apply; found "destroy"',
    ],
  ])('a malformed saved plan (%s) is refused', async (content, message) => {
    await writeFile(join(dir, 'plan.json'), content);
    const { code, err } = await run(['apply', '--plan', join(dir, 'plan.json')], { env: CREDS });
    expect(code).toBe(1);
    expect(err).toMatch(message);
  });
});

describe('redactCredentials', () => {
  // Titles name the case, never the input: the input holds the private key, and test titles are test output.
  it.each([
    ['a text holding the private key', 'key 7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c here', 'key (redacted) here'],
    ['a text without it', 'nothing secret', 'nothing secret'],
  ])('redacts %s', (_case, input, output) => {
    expect(redactCredentials(input, CREDS)).toBe(output);
  });
});

describe('environment', () => {
  it('--help lists every OPSMAN_ variable the CLI reads', async () => {
    const { out } = await run(['--help']);
    for (const name of [
      'BASE_URL',
      'PUBLIC_KEY',
      'PRIVATE_KEY',
      'FINGERPRINT_KEY',
      'DESIRED_CACHE',
      'SECRET_<ID>_<KEY>',
    ])
      expect(out).toContain(`  OPSMAN_${name} `);
  });

  it('a misspelt OPSMAN_DESIRED_CACHE is refused before any Ops Manager call, not read as on', async () => {
    const { code, err } = await run(['plan', '--desired', EXAMPLE, '--state-dir', join(dir, 'state')], {
      env: { ...CREDS, OPSMAN_DESIRED_CACHE: 'of' },
    });
    expect(code).toBe(1);
    expect(err).toBe('error: OPSMAN_DESIRED_CACHE must be on or off (got "of") (DESIRED_CACHE_SETTING)\n');
  });
});

describe('error codes', () => {
  it('a message ending with the system code gets one parenthesis naming both codes', async () => {
    await writeFile(join(dir, 'a-file'), '');
    const { code, err } = await run(['plan', '--desired', EXAMPLE, '--state-dir', join(dir, 'a-file')], {
      env: CREDS,
    });
    expect(code).toBe(1);
    expect(err).toBe(
      `error: cannot create the state directory ${join(dir, 'a-file')}: ${join(dir, 'a-file')} is a file, not a directory (FS_STORE_ERROR, EEXIST)\n`,
    );
  });

  it.each([
    ['a message without a code', 'the lock is held', 'LEASE_HELD', 'the lock is held (LEASE_HELD)'],
    ['a message naming its code already', 'LEASE_HELD: held', 'LEASE_HELD', 'LEASE_HELD: held'],
    ['a code-less error', 'broken (EACCES)', undefined, 'broken (EACCES)'],
    ['a parenthesis that is not a system code', 'see run (r-1)', 'X', 'see run (r-1) (X)'],
  ])('%s', (_case, message, errorCode, printed) => {
    expect(withCode(message, errorCode)).toBe(printed);
  });
});
