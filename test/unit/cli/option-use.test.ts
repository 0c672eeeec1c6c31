// Scenario: every command refuses every option it does not use (exit 2, naming option, command and what to use
// instead), takes every option its help lists, and apply refuses the combinations it cannot honour.
import { describe, expect, it } from 'vitest';
import { COMMAND_INFO, COMMANDS, type CommandName } from '../../../lambdas/cli/commands-table.ts';
import { UsageError } from '../../../lambdas/cli/errors.ts';
import { OPTION_HELP } from '../../../lambdas/cli/help.ts';
import { UNIVERSAL_OPTIONS } from '../../../lambdas/cli/option-use.ts';
import { OPTION_NAMES, parseInvocation } from '../../../lambdas/cli/options.ts';

/** A valid command line for each option, so only its use (never its value) can be refused. */
const SAMPLE: Record<string, string[]> = {
  desired: ['--desired', 'ds'],
  'base-url': ['--base-url', 'https://om.example.com/api/public/v1.0'],
  'ca-file': ['--ca-file', 'ca.pem'],
  'insecure-skip-verify': ['--insecure-skip-verify'],
  'secrets-file': ['--secrets-file', 's.json'],
  'state-dir': ['--state-dir', 'st'],
  'archive-dir': ['--archive-dir', 'ar'],
  project: ['--project', '5e2211c17a3e5a48f5497de3'],
  org: ['--org', '5e2211c17a3e5a48f5497de0'],
  mode: ['--mode', 'plan'],
  'auto-approve': ['--auto-approve'],
  json: ['--json'],
  markdown: ['--markdown'],
  'no-color': ['--no-color'],
  'detailed-exitcode': ['--detailed-exitcode'],
  out: ['--out', 'plan.json'],
  plan: ['--plan', 'plan.json'],
  'max-deletes': ['--max-deletes', '3'],
  'allow-empty': ['--allow-empty'],
  'ignore-windows': ['--ignore-windows'],
  'lease-wait': ['--lease-wait', '5'],
  'request-timeout': ['--request-timeout', '30'],
  help: ['--help'],
  version: ['--version'],
};

/** The positionals a command needs to parse at all. */
const ARGS: Partial<Record<CommandName, string[]>> = { unlock: ['20261121T184351Z-867bac'] };
/** emulator parses its own options (emulator/cli.ts); help is checked below. */
const CHECKED = COMMANDS.filter((c) => c !== 'emulator');

function usageError(argv: string[]): UsageError | undefined {
  try {
    parseInvocation(argv, {});
    return undefined;
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
}

describe('the option table', () => {
  it('has a sample for every option and a help line for every option a command takes', () => {
    expect(Object.keys(SAMPLE).sort()).toEqual([...OPTION_NAMES].sort());
    for (const command of COMMANDS)
      for (const option of COMMAND_INFO[command].uses) expect(OPTION_HELP[option]).toBeDefined();
  });
});

describe('every command refuses every option it does not use', () => {
  const CASES = CHECKED.flatMap((command) =>
    OPTION_NAMES.filter((o) => !COMMAND_INFO[command].uses.includes(o) && !UNIVERSAL_OPTIONS.includes(o)).map(
      (option) => ({ command, option }),
    ),
  );
  it('covers each command', () => {
    expect(new Set(CASES.map((c) => c.command))).toEqual(new Set(CHECKED));
  });
  it.each(CASES)('$command --$option', ({ command, option }) => {
    const error = usageError([command, ...(ARGS[command] ?? []), ...(SAMPLE[option] as string[])]);
    expect(error?.exitCode).toBe(2);
    expect(error?.command).toBe(command);
    expect(error?.message).toMatch(new RegExp(`^${command} does not take --${option}: \\S`));
  });
});

describe('every command takes every option its help lists', () => {
  const CASES = CHECKED.flatMap((command) => COMMAND_INFO[command].uses.map((option) => ({ command, option })));
  it.each(CASES)('$command --$option', ({ command, option }) => {
    // apply --json cannot ask for approval: it comes with --auto-approve (refused alone, below).
    const extra = command === 'apply' && option === 'json' ? ['--auto-approve'] : [];
    const argv = [command, ...(ARGS[command] ?? []), ...(SAMPLE[option] as string[]), ...extra];
    expect(usageError(argv)).toBeUndefined();
  });
});

describe('the refusals say what to use instead', () => {
  it.each([
    [
      ['plan', '--plan', 'p.json'],
      'plan does not take --plan: plan makes a plan and does not read one; save it with `plan --out FILE` and apply it with `apply --plan FILE`',
    ],
    [
      ['apply', '--out', 'p.json'],
      'apply does not take --out: apply does not write a plan; use `plan --out FILE`, then `apply --plan FILE`',
    ],
    [
      ['apply', '--markdown'],
      'apply does not take --markdown: apply prints text or JSON; comment the output of `plan --markdown` instead',
    ],
    [
      ['observe', '--mode', 'apply'],
      'observe does not take --mode: it always runs in observe mode (`plan --mode observe` is the same run)',
    ],
    [
      ['observe', '--max-deletes', '9'],
      'observe does not take --max-deletes: it writes nothing, so no deletion limit applies; use it with `plan` or `apply`',
    ],
    [
      ['plan', '--lease-wait', '5'],
      'plan does not take --lease-wait: it writes nothing and takes no lock; only `apply` waits for one',
    ],
    [
      ['validate', '--base-url', 'https://om/api/public/v1.0'],
      'validate does not take --base-url: it never talks to Ops Manager',
    ],
    [
      ['archive', '--secrets-file', 's.json'],
      'archive does not take --secrets-file: it resolves no secrets (it reads the version manifest and the usage only)',
    ],
    [
      ['unlock', 'r1', '--json'],
      'unlock does not take --json: --json is for validate, plan, apply, observe, archive, export',
    ],
    [
      ['demo', '--desired', 'ds'],
      'demo does not take --desired: the demo brings its own emulator, desired state and working directory; --desired is for validate, plan, apply, observe, archive',
    ],
    // The first option the command does not use, in command-line order.
    [
      ['apply', '--json', '--auto-approve', '--out', 'a', '--markdown'],
      'apply does not take --out: apply does not write a plan; use `plan --out FILE`, then `apply --plan FILE`',
    ],
  ])('%j', (argv, message) => {
    expect(usageError(argv)?.message).toBe(message);
  });
});

describe('apply refuses what a saved plan or a JSON run cannot honour', () => {
  it.each(['project', 'max-deletes', 'allow-empty'])('--plan FILE with --%s', (option) => {
    expect(usageError(['apply', '--plan', 'p.json', ...(SAMPLE[option] as string[])])?.message).toBe(
      `apply --plan FILE applies the saved plan as it was made and does not take --${option}: pass --${option} to \`plan --out FILE\` and apply that plan`,
    );
  });

  it('--json without --auto-approve or --plan (it would print the plan as text to ask)', () => {
    expect(usageError(['apply', '--json'])?.message).toMatch(
      /^apply --json cannot ask for approval .*add --auto-approve/,
    );
    expect(usageError(['apply', '--json', '--auto-approve'])).toBeUndefined();
    expect(usageError(['apply', '--json', '--plan', 'p.json'])).toBeUndefined();
  });
});

describe('--help and --version are taken by every command and checked nothing else', () => {
  it.each(CHECKED)('%s --help --out x prints help', (command) => {
    const parsed = parseInvocation([command, ...(ARGS[command] ?? []), '--help', '--out', 'x'], {});
    expect(parsed.options.help).toBe(true);
  });
});
