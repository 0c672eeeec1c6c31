// Scenario: a `plan --markdown > plan.md` that fails before it has a plan prints a Markdown comment saying so (the
// issues with file:line:column when the desired state is invalid), so a pipeline posting plan.md replaces the last
// plan on the pull request instead of leaving it there as if current; same exit code, same words on stderr.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../lambdas/cli/main.ts';
import {
  MAX_MARKDOWN_ISSUES,
  MAX_MARKDOWN_MESSAGE,
  renderFailureMarkdown,
  wantsMarkdown,
} from '../../../lambdas/cli/markdown-failure.ts';
import { MARKDOWN_MAX_CHARS } from '../../../lambdas/core/render/plan-markdown.ts';
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

async function run(argv: string[], env: Record<string, string> = CREDS) {
  const io = recordingIo({ env });
  const code = await runCli(argv, { startEmulator: noEmulator, io });
  return { code, out: io.out(), err: io.err() };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-markdown-failure-'));
  await mkdir(join(dir, 'broken'));
  await writeFile(join(dir, 'broken', 'p.yaml'), BROKEN);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('plan --markdown that cannot plan', () => {
  it.each([
    ['plan', 'plan'],
    ['observe', 'drift report'],
  ])(
    '%s: an invalid desired state is a comment with each issue, exit 1, the words on stderr as without it',
    async (command, title) => {
      const broken = join(dir, 'broken');
      const { code, out, err } = await run([command, '--markdown', '--desired', broken]);
      const plain = await run([command, '--desired', broken]);
      expect(code).toBe(1);
      expect(plain.code).toBe(1);
      expect(plain.out).toBe('');
      expect(err).toBe(plain.err);
      const lines = out.split('\n');
      expect(lines.slice(0, 3)).toEqual([
        `### opsman-gitops ${title}`,
        '',
        `**No plan: the desired state in ${broken} is invalid; nothing was sent to Ops Manager** (\`DESIRED_STATE_INVALID\`)`,
      ]);
      expect(lines[4]).toMatch(/^- p\.yaml:5:14: metadata\.projectId must be a project id/);
      expect(lines.slice(5)).toEqual([
        '- p.yaml:7:9: spec.mode must be one of observe, plan, apply; found "yolo"',
        '',
        'Nothing was planned, and nothing was written.',
        '',
      ]);
    },
  );

  it('a usage error is a comment too, with its code and exit 2; the private key never reaches it', async () => {
    const { code, out } = await run(['plan', '--markdown', '--mode', 'aply'], {
      ...CREDS,
      OPSMAN_PRIVATE_KEY: `${CREDS.OPSMAN_PRIVATE_KEY}\n`,
    });
    expect(code).toBe(2);
    expect(out).toContain('**No plan: ');
    expect(out).toContain('(`CLI_USAGE`)');
    expect(out).not.toContain(CREDS.OPSMAN_PRIVATE_KEY);
  });

  it('a secrets file that does not exist is a comment naming it (exit 1)', async () => {
    const missing = join(dir, 'nope.json');
    const { code, out } = await run(['plan', '--markdown', '--secrets-file', missing, '--desired', EXAMPLE]);
    expect(code).toBe(1);
    expect(out).toContain(`**No plan: secrets file ${missing} `);
    expect(out).toContain('(`SECRETS_FILE_NOT_FOUND`)');
  });

  it('--json wins: with both, stdout is the JSON failure document only', async () => {
    const { code, out } = await run(['plan', '--markdown', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toMatchObject({ ok: false, error: { code: 'CLI_USAGE' } });
  });

  it('without --markdown, stdout stays empty', async () => {
    const { out } = await run(['plan', '--desired', join(dir, 'broken')]);
    expect(out).toBe('');
  });
});

describe('renderFailureMarkdown', () => {
  it('escapes the message: a path with Markdown or a mention cannot format, link or ping', () => {
    const text = renderFailureMarkdown(
      { ok: false, error: { code: 'CLI_NO_DIRECTORY', message: "--desired '@jdoe/[x](y)|*z*' does not exist" } },
      'plan',
    );
    expect(text).toContain(
      "**No plan: --desired '@&#8203;jdoe/\\[x\\](y)\\|\\*z\\*' does not exist** (`CLI_NO_DIRECTORY`)",
    );
  });

  it('quotes a very long message up to its cap and counts the rest, so the comment stays within the budget', () => {
    const message = `${'m'.repeat(MAX_MARKDOWN_MESSAGE)}${'y'.repeat(100_000)}`;
    const text = renderFailureMarkdown({ ok: false, error: { code: 'UNKNOWN_PROJECT', message } }, 'plan');
    expect(text.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(text).toContain(
      `**No plan: ${'m'.repeat(MAX_MARKDOWN_MESSAGE)} ... (100000 more characters: the run's stderr has the whole message)** (\`UNKNOWN_PROJECT\`)`,
    );
    const exact = renderFailureMarkdown(
      { ok: false, error: { code: 'X', message: '𝄞'.repeat(MAX_MARKDOWN_MESSAGE) } },
      'plan',
    );
    expect(exact).toContain(`**No plan: ${'𝄞'.repeat(MAX_MARKDOWN_MESSAGE)}** (\`X\`)`);
  });

  it(`lists ${MAX_MARKDOWN_ISSUES} issues and counts the rest, within the comment budget`, () => {
    const issues = Array.from({ length: 400 }, (_, i) => ({
      file: 'p.yaml',
      line: i + 1,
      column: 1,
      path: 'spec',
      message: 'x'.repeat(2_000),
    }));
    const text = renderFailureMarkdown(
      { ok: false, error: { code: 'DESIRED_STATE_INVALID', message: 'm' }, issues },
      'plan',
    );
    expect(text.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    const listed = text.split('\n').filter((l) => l.startsWith('- p.yaml:')).length;
    expect(listed).toBeGreaterThan(0);
    expect(text).toContain(`- ... ${400 - listed} more (\`opsman-gitops validate\` lists them all)`);
    const few = renderFailureMarkdown(
      {
        ok: false,
        error: { code: 'DESIRED_STATE_INVALID', message: 'm' },
        issues: issues.map((i) => ({ ...i, message: 'short' })),
      },
      'plan',
    );
    expect(few.split('\n').filter((l) => l.startsWith('- p.yaml:'))).toHaveLength(MAX_MARKDOWN_ISSUES);
    expect(few).toContain(`- ... ${400 - MAX_MARKDOWN_ISSUES} more`);
  });
});

describe('wantsMarkdown', () => {
  it.each([
    [['plan', '--markdown'], true],
    [['observe', '--markdown=1'], true],
    [['--markdown', 'plan'], true],
    [['plan', '--markdown', '--json'], false],
    [['apply', '--markdown'], false],
    [['validate', '--markdown'], false],
    [['plna', '--markdown'], false],
    [['plan', '--', '--markdown'], false],
    [['plan'], false],
  ])('%j: %s', (argv, expected) => {
    expect(wantsMarkdown(argv)).toBe(expected);
  });
});
