// Scenario: the example GitHub Actions workflow (docs/examples) is a well-formed workflow, every `opsman-gitops` command
// line in it is accepted by the CLI's own option parser, the secret values it writes never outlive the plan, the PR
// job never reads the Lambda's write key, a state it cannot read fails the job rather than planning without it, and
// the plan comment is found by its marker, never by "the bot's last comment".
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { COMMAND_INFO } from '../../../lambdas/cli/commands-table.ts';
import { parseInvocation } from '../../../lambdas/cli/options.ts';

const FILE = resolve(import.meta.dirname, '../../../docs/examples/github-actions-opsman-gitops.yml');

interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  'runs-on': string;
  if?: string;
  permissions?: Record<string, string>;
  steps: Step[];
}

const doc = parseDocument(readFileSync(FILE, 'utf8'));
const workflow = doc.toJS() as { on: Record<string, unknown>; jobs: Record<string, Job> };
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);

/** Shell words of one command (quotes removed), up to the first redirection or control operator. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const bare = match[3];
    if (bare !== undefined && /^(>|>>|2>|<|\||\|\||&&|;)/.test(bare)) break;
    words.push(match[1] ?? match[2] ?? bare ?? '');
  }
  return words;
}

/** Every CLI invocation of a step's script, continuation lines joined: the arguments after the program. */
function cliInvocations(script: string): string[][] {
  const lines = script.replace(/\\\n\s*/g, ' ').split('\n');
  return lines
    .map((line) => /(?:^|\s)(?:node bin\/opsman-gitops\.mjs|npx opsman-gitops)\s+(.*)$/.exec(line)?.[1])
    .filter((rest): rest is string => rest !== undefined)
    .map(shellWords);
}

describe('docs/examples/github-actions-opsman-gitops.yml', () => {
  it('is YAML without errors or warnings, with the keys of a GitHub Actions workflow', () => {
    expect(doc.errors).toEqual([]);
    expect(doc.warnings).toEqual([]);
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    for (const [id, job] of Object.entries(workflow.jobs)) {
      expect(job['runs-on'], id).toBe('ubuntu-latest');
      expect(job.steps.length, id).toBeGreaterThan(0);
      for (const step of job.steps)
        expect(Number('uses' in step) + Number('run' in step), JSON.stringify(step)).toBe(1);
    }
  });

  it('uses current major versions of its actions, and a Node.js the package supports', () => {
    const versions = Object.fromEntries(steps.flatMap((s) => (s.uses ? [s.uses.split('@')] : [])));
    expect(versions).toEqual({
      'actions/checkout': 'v5',
      'actions/setup-node': 'v5',
      'aws-actions/configure-aws-credentials': 'v5',
    });
    for (const step of steps.filter((s) => s.uses?.startsWith('actions/setup-node@'))) {
      expect(Number(step.with?.['node-version'])).toBeGreaterThanOrEqual(20);
    }
  });

  const invocations = steps.flatMap((step) => cliInvocations(step.run ?? '').map((argv) => ({ step, argv })));

  it('runs validate (both jobs) and plan --markdown', () => {
    expect(invocations.map(({ argv }) => argv[0])).toEqual(['validate', 'plan', 'validate']);
  });

  it.each(invocations.map(({ step, argv }) => [argv.join(' '), argv, step] as const))(
    'opsman-gitops %s is accepted by parseInvocation, with its credentials in the step env',
    (_line, argv, step) => {
      const env = { OPSMAN_BASE_URL: 'https://opsmanager.example.internal:8443/api/public/v1.0' };
      const { command, options } = parseInvocation(argv, env);
      expect(command).toBe(argv[0]);
      if (command !== undefined && COMMAND_INFO[command].uses.includes('base-url')) {
        expect(Object.keys(step.env ?? {})).toEqual(
          expect.arrayContaining(['OPSMAN_BASE_URL', 'OPSMAN_PUBLIC_KEY', 'OPSMAN_PRIVATE_KEY']),
        );
      }
      if (options.secretsFile !== undefined) {
        // Deleted on every exit of the step, a failed plan's included, not only after a plan that succeeded.
        expect(step.run).toContain(`trap 'rm -f "${options.secretsFile}"' EXIT`);
      }
    },
  );

  it('masks every secret value it fetches and never passes one as a command argument (the process list shows those)', () => {
    const fetch = steps.find((step) => step.run?.includes('get-secret-value'))?.run ?? '';
    expect(fetch).not.toBe('');
    const script = fetch.replace(/\\\n\s*/g, ' ');
    // Each string of each secret is masked in the log.
    expect(script).toMatch(/jq -r '\.\. \| strings' <<<"\$value" \| while IFS= read -r s; do\s.*::add-mask::\$s/s);
    // No command line carries "$value" or "$key" as an argument: they reach commands on stdin (<<<) only.
    for (const line of script.split('\n')) {
      const args = line.replace(/<<<"\$(value|key)"/g, '').replace(/^\s*(value|key)=\$\(.*\)\s*$/, '');
      expect(args, line).not.toMatch(/"\$value"|\$value\b/);
    }
  });
});

describe('the pull-request job of the example workflow', () => {
  const plan = workflow.jobs.plan;
  const stepNamed = (prefix: string): Step => {
    const step = plan?.steps.find((s) => s.name?.startsWith(prefix));
    if (step === undefined) throw new Error(`no step ${prefix}`);
    return step;
  };

  it('never reads opsman/credentials (the write key): the fingerprint key comes from a repository secret', () => {
    const fetch = stepNamed('Fetch').run ?? '';
    const skip = fetch.indexOf('if [ "$id" = "opsman/credentials" ]; then continue; fi');
    expect(skip).toBeGreaterThan(-1);
    expect(skip).toBeLessThan(fetch.indexOf('get-secret-value'));
    expect(fetch).not.toContain('.fingerprintKey');
    expect(fetch).not.toContain('GITHUB_ENV');
    // A missing repository secret is an empty variable, which the CLI takes as unset (a key of its own): said.
    expect(stepNamed('Plan').run).toContain('if [ -z "$OPSMAN_FINGERPRINT_KEY" ]; then');
    expect(stepNamed('Plan').env?.OPSMAN_FINGERPRINT_KEY).toBe(
      ['${{', 'secrets.OPSMAN_FINGERPRINT_KEY', '}}'].join(' '),
    );
  });

  it('runs for branches of this repository only (a fork gets no secrets, no OIDC token, no comment rights)', () => {
    expect(plan?.if).toContain('github.event.pull_request.head.repo.full_name == github.repository');
    expect(plan?.permissions).toEqual({ contents: 'read', 'id-token': 'write', 'pull-requests': 'write' });
  });

  /** Runs the fetch step with a fake `aws` whose `s3 cp` fails as S3 does for `answer`, returning the exit code. */
  function fetchWith(answer: string): { status: number; stdout: string } {
    const dir = mkdtempSync(join(tmpdir(), 'opsman-wf-'));
    try {
      mkdirSync(join(dir, 'bin'));
      mkdirSync(join(dir, 'tmp'));
      const aws = join(dir, 'bin', 'aws');
      writeFileSync(
        aws,
        `#!/bin/bash\nif [ "$1 $2" = "s3 cp" ]; then echo 'fatal error: An error occurred (${answer}) when calling the HeadObject operation: x' >&2; exit 1; fi\n`,
      );
      chmodSync(aws, 0o755);
      const env = { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, RUNNER_TEMP: join(dir, 'tmp'), DATA_BUCKET: 'b' };
      try {
        const stdout = execFileSync('bash', ['-e', '-c', stepNamed('Fetch').run ?? ''], {
          cwd: dir,
          env,
          stdio: 'pipe',
        });
        return { status: 0, stdout: stdout.toString() };
      } catch (error) {
        const e = error as { status: number; stdout: Buffer };
        return { status: e.status, stdout: e.stdout.toString() };
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('plans without a state only when S3 says there is none (404); a refused read (403) fails the step', () => {
    expect(fetchWith('404')).toEqual({ status: 0, stdout: 'no state yet: the Lambda has not run\n' });
    expect(fetchWith('403').status).toBe(1);
  });

  it('plans after a failed validate too (the comment then says why there is no plan), never after a failed fetch', () => {
    expect(stepNamed('Validate').id).toBe('validate');
    expect(stepNamed('Fetch').id).toBe('fetch');
    // GitHub's expression syntax, written as a plain string: `$` + `{{ ... }}`.
    expect(stepNamed('Plan').if).toBe(
      `$\{{ !cancelled() && (steps.fetch.outcome == 'success' || steps.validate.outcome == 'failure') }}`,
    );
    expect(stepNamed('Post the plan').if).toContain('always()');
  });

  it("updates its own comment, found by its marker among github-actions[bot]'s, never with gh's --edit-last", () => {
    const post = stepNamed('Post the plan').run ?? '';
    expect(post).not.toMatch(/gh pr comment[^\n]*--edit-last/);
    expect(post).toContain("marker='<!-- opsman-gitops plan -->'");
    expect(post).toContain('select(.user.login == \\"github-actions[bot]\\" and (.body | startswith(\\"$marker\\")))');
    // What it adds to the CLI's plan stays within GitHub's 65,536 characters (the plan itself is at most 65,000).
    const added = /\{ echo "\$marker"\n([\s\S]*?)cat plan\.md/.exec(post)?.[1] ?? '';
    expect(added).not.toBe('');
    expect(added.length + 40).toBeLessThan(536);
  });
});
