// Scenario: the example GitHub Actions workflow (docs/examples) is a well-formed workflow, every `opsman-gitops` command
// line in it is accepted by the CLI's own option parser, and the secret values it writes never outlive the plan.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { COMMAND_INFO } from '../../../lambdas/cli/commands-table.ts';
import { parseInvocation } from '../../../lambdas/cli/options.ts';

const FILE = resolve(import.meta.dirname, '../../../docs/examples/github-actions-opsman-gitops.yml');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  'runs-on': string;
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
