// Scenario: `plan --out FILE` suggests the `apply --plan FILE` line to run next; it carries over the options the apply
// needs as the plan was made with them (secrets, state, archive, TLS, deadline), so following it literally works.
import { describe, expect, it } from 'vitest';
import { applySavedPlanCommand, shellWord } from '../../../lambdas/cli/commands/apply-command.ts';
import { parseInvocation } from '../../../lambdas/cli/options.ts';

const ENV = { OPSMAN_BASE_URL: 'http://127.0.0.1:8080/api/public/v1.0' };

function suggestion(args: string[], env: Record<string, string | undefined> = ENV): string {
  const { options } = parseInvocation(['plan', '--out', 'plan.json', ...args], env);
  return applySavedPlanCommand(options, options.out as string, env);
}

describe('applySavedPlanCommand', () => {
  it('is the bare command when the plan used only defaults', () => {
    expect(suggestion([])).toBe('opsman-gitops apply --plan plan.json');
  });

  it('keeps the secrets file, the state and archive directories, TLS and the deadline of the plan run', () => {
    expect(
      suggestion([
        '--secrets-file',
        'desired-state/local-secrets.json',
        '--state-dir',
        '/srv/state',
        '--archive-dir',
        '/srv/archive',
        '--desired',
        'other/',
        '--ca-file',
        'ca.pem',
        '--request-timeout',
        '30',
      ]),
    ).toBe(
      'opsman-gitops apply --plan plan.json --desired other/ --secrets-file desired-state/local-secrets.json ' +
        '--state-dir /srv/state --archive-dir /srv/archive --ca-file ca.pem --request-timeout 30',
    );
  });

  it('leaves out the archive directory that follows from the state directory', () => {
    expect(suggestion(['--state-dir', 'st/'])).toBe('opsman-gitops apply --plan plan.json --state-dir st/');
  });

  it('leaves out the options apply --plan refuses (--project) and those that only shape the output', () => {
    expect(suggestion(['--project', '5e2211c17a3e5a48f5497de3', '--json', '--no-color'])).toBe(
      'opsman-gitops apply --plan plan.json',
    );
  });

  it('keeps a --base-url the environment does not give (a saved plan does not name its Ops Manager)', () => {
    const url = 'https://om.example.com:8443/api/public/v1.0';
    expect(suggestion(['--base-url', url])).toBe(`opsman-gitops apply --plan plan.json --base-url ${url}`);
    expect(suggestion(['--base-url', url], {})).toBe(`opsman-gitops apply --plan plan.json --base-url ${url}`);
    // The same URL as OPSMAN_BASE_URL, however written, is not repeated.
    expect(suggestion(['--base-url', `${ENV.OPSMAN_BASE_URL}/`])).toBe('opsman-gitops apply --plan plan.json');
  });

  it('quotes words a shell would split or expand', () => {
    expect(shellWord('my plans/plan.json')).toBe("'my plans/plan.json'");
    expect(shellWord("it's")).toBe("'it'\\''s'");
    expect(shellWord('$HOME')).toBe("'$HOME'");
  });
});
