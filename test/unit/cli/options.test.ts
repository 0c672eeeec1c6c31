// Scenario: every command and global option parses (strict) into typed options; every mistake is a clear usage error.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../lambdas/cli/commands-table.ts';
import { UsageError } from '../../../lambdas/cli/errors.ts';
import { commandWord, DEFAULT_OPTIONS, parseInvocation } from '../../../lambdas/cli/options.ts';

const P1 = '5e2211c17a3e5a48f5497de3';
const P2 = '5e2211c17a3e5a48f5497de4';

/** The UsageError parseInvocation refuses `argv` with (fails the test when it accepts it or throws something else). */
function refusalOf(argv: string[], env: Record<string, string | undefined>): UsageError {
  let caught: unknown;
  try {
    parseInvocation(argv, env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(UsageError);
  return caught as UsageError;
}

describe('parseInvocation: commands', () => {
  // help and unlock take an argument (tested below).
  it.each(COMMANDS.filter((c) => c !== 'help' && c !== 'unlock'))('%s parses with defaults', (command) => {
    const { command: parsed, args, options } = parseInvocation([command], {});
    expect(parsed).toBe(command);
    expect(args).toEqual([]);
    expect(options).toMatchObject({
      desired: DEFAULT_OPTIONS.desired,
      stateDir: '.opsman-gitops/',
      archiveDir: '.opsman-gitops/archive',
      projects: [],
      autoApprove: false,
      json: false,
      markdown: false,
      noColor: false,
      forceColor: false,
      detailedExitcode: false,
      allowEmpty: false,
      insecureSkipVerify: false,
      leaseWaitSeconds: 0,
      help: false,
    });
    expect(options.baseUrl).toBeUndefined();
    expect(options.mode).toBeUndefined();
  });

  it('no command at all is allowed (top-level help)', () => {
    expect(parseInvocation([], {}).command).toBeUndefined();
    expect(parseInvocation(['--help'], {}).options.help).toBe(true);
    expect(parseInvocation(['-h'], {}).options.help).toBe(true);
  });

  it('help takes one command name', () => {
    expect(parseInvocation(['help', 'plan'], {})).toMatchObject({ command: 'help', args: ['plan'] });
  });
});

describe('parseInvocation: global options', () => {
  const CASES: { argv: string[]; env?: Record<string, string>; expected: Record<string, unknown> }[] = [
    { argv: ['plan', '--desired', 'ds'], expected: { desired: 'ds' } },
    { argv: ['plan', '--desired=ds2'], expected: { desired: 'ds2' } },
    {
      argv: ['plan', '--base-url', 'https://om:8443/api/public/v1.0/'],
      expected: { baseUrl: 'https://om:8443/api/public/v1.0' },
    },
    {
      argv: ['plan'],
      env: { OPSMAN_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0' },
      expected: { baseUrl: 'http://127.0.0.1:9/api/public/v1.0' },
    },
    {
      argv: ['plan', '--base-url', 'https://flag/api/public/v1.0'],
      env: { OPSMAN_BASE_URL: 'https://env/api/public/v1.0' },
      expected: { baseUrl: 'https://flag/api/public/v1.0' },
    },
    { argv: ['plan', '--ca-file', 'ca.pem'], expected: { caFile: 'ca.pem' } },
    { argv: ['plan', '--insecure-skip-verify'], expected: { insecureSkipVerify: true } },
    { argv: ['plan', '--secrets-file', 's.json'], expected: { secretsFile: 's.json' } },
    { argv: ['plan', '--state-dir', '/tmp/st/'], expected: { stateDir: '/tmp/st/', archiveDir: '/tmp/st/archive' } },
    { argv: ['plan', '--state-dir', 'st', '--archive-dir', 'ar'], expected: { stateDir: 'st', archiveDir: 'ar' } },
    { argv: ['plan', '--project', P1], expected: { projects: [P1] } },
    {
      argv: ['plan', '--project', P1, '--project', P2, '--project', P1.toUpperCase()],
      expected: { projects: [P1, P2] },
    },
    // A name is kept as written (the run resolves it against the desired state); ids are lower-cased.
    {
      argv: ['apply', '--project', 'Payments-prod', '--project', P2.toUpperCase(), '--project', 'Payments-prod'],
      expected: { projects: ['Payments-prod', P2] },
    },
    { argv: ['plan', '--project', `9${'p'.repeat(62)}`], expected: { projects: [`9${'p'.repeat(62)}`] } },
    { argv: ['plan', '--mode', 'observe'], expected: { mode: 'observe' } },
    { argv: ['apply', '--mode=apply'], expected: { mode: 'apply' } },
    { argv: ['apply', '--auto-approve'], expected: { autoApprove: true } },
    { argv: ['plan', '--json'], expected: { json: true } },
    { argv: ['plan', '--markdown'], expected: { markdown: true } },
    { argv: ['plan', '--no-color'], expected: { noColor: true } },
    { argv: ['plan'], env: { NO_COLOR: '1' }, expected: { noColor: true } },
    { argv: ['plan'], env: { NO_COLOR: '' }, expected: { noColor: false } },
    // FORCE_COLOR (force-color.org; CI services set it): on unless 0/false, over NO_COLOR, never over --no-color.
    { argv: ['plan'], env: { FORCE_COLOR: '1' }, expected: { noColor: false, forceColor: true } },
    { argv: ['plan'], env: { FORCE_COLOR: '3' }, expected: { noColor: false, forceColor: true } },
    { argv: ['plan'], env: { FORCE_COLOR: 'true', NO_COLOR: '1' }, expected: { noColor: false, forceColor: true } },
    { argv: ['plan', '--no-color'], env: { FORCE_COLOR: '1' }, expected: { noColor: true, forceColor: false } },
    { argv: ['plan'], env: { FORCE_COLOR: '0' }, expected: { noColor: true, forceColor: false } },
    { argv: ['plan'], env: { FORCE_COLOR: 'FALSE' }, expected: { noColor: true, forceColor: false } },
    { argv: ['plan'], env: { FORCE_COLOR: '', NO_COLOR: '1' }, expected: { noColor: true, forceColor: false } },
    { argv: ['plan', '--detailed-exitcode'], expected: { detailedExitcode: true } },
    { argv: ['plan', '--out', 'plan.json'], expected: { out: 'plan.json' } },
    { argv: ['apply', '--plan', 'plan.json'], expected: { planFile: 'plan.json' } },
    { argv: ['apply', '--max-deletes', '0'], expected: { maxDeletes: 0 } },
    { argv: ['apply', '--max-deletes', '12'], expected: { maxDeletes: 12 } },
    { argv: ['apply', '--allow-empty'], expected: { allowEmpty: true } },
    { argv: ['apply', '--lease-wait', '30'], expected: { leaseWaitSeconds: 30 } },
    { argv: ['apply', '--lease-wait', '1.5'], expected: { leaseWaitSeconds: 1.5 } },
    { argv: ['apply', '--lease-wait', '86400'], expected: { leaseWaitSeconds: 86_400 } },
    // An empty OPSMAN_BASE_URL (`OPSMAN_BASE_URL= opsman-gitops plan`) is an unset one, as NO_COLOR='' is.
    { argv: ['plan'], env: { OPSMAN_BASE_URL: '' }, expected: { baseUrl: undefined } },
    { argv: ['plan'], expected: { requestTimeoutSeconds: undefined } },
    { argv: ['plan', '--request-timeout', '30'], expected: { requestTimeoutSeconds: 30 } },
    { argv: ['observe', '--request-timeout=2.5'], expected: { requestTimeoutSeconds: 2.5 } },
    { argv: ['apply', '--request-timeout', '1'], expected: { requestTimeoutSeconds: 1 } },
    { argv: ['archive', '--request-timeout', '3600'], expected: { requestTimeoutSeconds: 3600 } },
    { argv: ['validate', '--json', '--no-color'], expected: { json: true, noColor: true } },
    { argv: ['apply', '--plan', 'p.json', '--json', '--mode', 'plan'], expected: { planFile: 'p.json', mode: 'plan' } },
    { argv: ['apply', '--json', '--auto-approve'], expected: { json: true, autoApprove: true } },
    // A command that does not talk to Ops Manager does not read (or check) OPSMAN_BASE_URL.
    { argv: ['validate'], env: { OPSMAN_BASE_URL: 'nope' }, expected: { baseUrl: undefined } },
    { argv: ['--desired', 'x', 'validate'], expected: { desired: 'x' } },
    // A repeat that loses nothing is accepted: the same value twice, a switch twice.
    { argv: ['plan', '--desired', 'ds', '--desired=ds'], expected: { desired: 'ds' } },
    { argv: ['plan', '--json', '--json'], expected: { json: true } },
    // A value that starts with '-' after '=', and a path with spaces and non-ASCII letters, are taken as written.
    { argv: ['plan', '--out=-plan.json'], expected: { out: '-plan.json' } },
    { argv: ['plan', '--out', './-'], expected: { out: './-' } },
    { argv: ['plan', '--desired', 'my desired/état'], expected: { desired: 'my desired/état' } },
    { argv: ['plan', '--help'], expected: { help: true } },
    // Help reads no value, so values that would be refused do not refuse it.
    { argv: ['plan', '--mode', 'observe', '--mode', 'apply', '--help'], expected: { help: true } },
    { argv: ['--version'], expected: { version: true } },
  ];
  it.each(CASES)('$argv $env', ({ argv, env, expected }) => {
    expect(parseInvocation(argv, env ?? {}).options).toMatchObject(expected);
  });
});

describe('parseInvocation: usage errors', () => {
  const CASES: { argv: string[]; env?: Record<string, string>; message: RegExp }[] = [
    { argv: ['plna'], message: /unknown command 'plna' \(did you mean 'plan'\?\)/ },
    { argv: ['frobnicate'], message: /^unknown command 'frobnicate'$/ },
    // Case is not an edit the reader counts.
    { argv: ['PLAN'], message: /^unknown command 'PLAN' \(did you mean 'plan'\?\)$/ },
    { argv: ['plan', '--JSON'], message: /^unknown option --JSON \(did you mean --json\?\)$/ },
    { argv: ['help', 'PLAN'], message: /^help takes one command name, found 'PLAN' \(did you mean 'plan'\?\)$/ },
    // The commands of terraform, kubectl and argocd: what they are called here.
    { argv: ['version'], message: /^unknown command 'version' \(use --version\)$/ },
    { argv: ['diff', '--json'], message: /^unknown command 'diff' \(use 'plan' \(or 'observe' for drift only\)\)$/ },
    { argv: ['sync'], message: /^unknown command 'sync' \(use 'apply'\)$/ },
    { argv: ['force-unlock', 'r1'], message: /^unknown command 'force-unlock' \(use 'unlock RUN_ID'\)$/ },
    { argv: ['plan', '--jsno'], message: /unknown option --jsno \(did you mean --json\?\)/ },
    { argv: ['plan', '--frobnicate'], message: /^unknown option --frobnicate$/ },
    // A typo of an option this command does not take: the suggestion says so at once, not one run later.
    {
      argv: ['plan', '--auto-aprove'],
      message:
        /^unknown option --auto-aprove \(did you mean --auto-approve\? plan does not take --auto-approve: it writes nothing, so there is nothing to approve; use `apply --auto-approve`\)$/,
    },
    { argv: ['apply', '--auto-aprove'], message: /^unknown option --auto-aprove \(did you mean --auto-approve\?\)$/ },
    {
      argv: ['validate', '--projet', 'x'],
      message:
        /^unknown option --projet \(did you mean --project\? validate does not take --project: --project is for /,
    },
    { argv: ['plan', '-x'], message: /unknown option -x/ },
    {
      argv: ['plan', '--private-key', 'abc'],
      message: /--private-key is not an option: credentials come from the environment only/,
    },
    { argv: ['apply', '--private-key=abc'], message: /OPSMAN_PRIVATE_KEY/ },
    { argv: ['plan', '--public-key', 'abc'], message: /--public-key is not an option/ },
    { argv: ['plan', '--private_key', 'abc'], message: /^--private_key is not an option: credentials come from/ },
    { argv: ['plan', '-privateKey=abc'], message: /^-privateKey is not an option: credentials come from/ },
    { argv: ['plan', '--mode', 'yolo'], message: /^--mode expects one of observe, plan, apply; found "yolo"$/ },
    {
      argv: ['apply', '--mode', 'aply'],
      message: /^--mode expects one of observe, plan, apply; found "aply"; did you mean "apply"\?$/,
    },
    { argv: ['plan', '--mode=obsrve'], message: /; found "obsrve"; did you mean "observe"\?$/ },
    { argv: ['plan', '--mode', 'PLAN'], message: /; found "PLAN"; did you mean "plan"\?$/ },
    { argv: ['help', 'aply'], message: /^help takes one command name, found 'aply' \(did you mean 'apply'\?\)$/ },
    { argv: ['plan', '--mode'], message: /--mode needs a value/ },
    { argv: ['plan', '--desired'], message: /--desired needs a value/ },
    { argv: ['plan', '--desired='], message: /--desired needs a non-empty path/ },
    // '-' is stdin or stdout to the user, never a file named '-' written or read in silence.
    ...[
      ['plan', '--out', '-'],
      ['apply', '--plan=-'],
      ['validate', '--desired', '-'],
      ['plan', '--secrets-file', '-'],
    ].map((argv) => ({
      argv,
      message: new RegExp(
        `^${argv[1]?.split('=')[0]} takes a path, and '-' \\(stdin or stdout\\) is not one here: name a file or directory`,
      ),
    })),
    { argv: ['plan', '--json=yes'], message: /--json takes no value/ },
    // Export reads projects git may not have: ids only (a run resolves a name against the desired state).
    {
      argv: ['export', '--project', 'payments-prod'],
      message:
        /^--project expects a 24-hex project id \(e\.g\. 5e2211c17a3e5a48f5497de3\), found 'payments-prod' \(export reads projects that may not be in git yet: give the id Ops Manager shows, not a name\)$/,
    },
    // Hex, only too short: a truncated paste, not a name.
    { argv: ['export', '--project', '5e2211c17a3e5a48f5497de'], message: /found '5e2211c17a3e5a48f5497de'$/ },
    // Neither an id nor a name the schema allows.
    {
      argv: ['plan', '--project', 'payments prod'],
      message:
        /^--project expects a 24-hex project id \(e\.g\. 5e2211c17a3e5a48f5497de3\) or a project's metadata\.name, found 'payments prod'$/,
    },
    // A name as the schema allows it: starting with a letter or digit, at most 63 characters.
    { argv: ['plan', '--project', '.payments'], message: /or a project's metadata\.name, found '\.payments'$/ },
    { argv: ['plan', '--project', 'p'.repeat(64)], message: new RegExp(`metadata\\.name, found '${'p'.repeat(64)}'$`) },
    // A control character is shown escaped, never sent to the terminal.
    {
      argv: ['plan', '--project', 'pay\u001b[2Jments'],
      message: /or a project's metadata\.name, found 'pay\\u001b\[2Jments'$/,
    },
    { argv: ['apply', '--max-deletes', '-1'], message: /--max-deletes needs a value; to pass one starting with '-'/ },
    {
      argv: ['apply', '--max-deletes=-1'],
      message: /--max-deletes expects a whole number from 0 to 999999, found '-1'/,
    },
    {
      argv: ['apply', '--max-deletes', 'many'],
      message: /--max-deletes expects a whole number from 0 to 999999, found 'many'/,
    },
    // A whole number >= 0 all the same: the refusal says the bound it is over.
    {
      argv: ['apply', '--max-deletes', '9999999'],
      message: /^--max-deletes expects a whole number from 0 to 999999, found '9999999'$/,
    },
    { argv: ['apply', '--max-deletes', '1.5'], message: /--max-deletes expects a whole number/ },
    {
      argv: ['apply', '--lease-wait', 'soon'],
      message:
        /^--lease-wait expects seconds from 0 to 86400, a plain decimal with at most 3 decimals \(30, 1\.5\), found 'soon'$/,
    },
    { argv: ['apply', '--lease-wait', '100000'], message: /--lease-wait expects seconds/ },
    { argv: ['apply', '--lease-wait', '86400.5'], message: /--lease-wait expects seconds from 0 to 86400/ },
    // An id with more after its 24 hex digits (a paste that took the next word too) is not an id.
    { argv: ['export', '--project', '5e2211c17a3e5a48f5497de3a'], message: /found '5e2211c17a3e5a48f5497de3a'$/ },
    { argv: ['export', '--project', '5e2211c17a3e5a48f5497de3-x'], message: /--project expects a 24-hex project id/ },
    { argv: ['export', '--org', '5e2211c17a3e5a48f5497de00'], message: /--org expects a 24-hex organization id/ },
    // Why a number is refused is in the message: too precise is not out of range.
    { argv: ['apply', '--lease-wait', '1.2345'], message: /at most 3 decimals \(30, 1\.5\), found '1\.2345'$/ },
    ...['0', '0.5', '3601', '-5', '1e3', '2m', '1.2345', '', ' 30'].map((value) => ({
      argv: ['plan', `--request-timeout=${value}`],
      message: new RegExp(
        `^--request-timeout expects seconds from 1 to 3600, a plain decimal with at most 3 decimals \\(how long one Ops Manager request may take, retries included; default 120\\), found '${value.replace(/[.]/g, '\\.')}'$`,
      ),
    })),
    { argv: ['plan', '--request-timeout'], message: /^--request-timeout needs a value$/ },
    {
      argv: ['plan', '--request-timout', '5'],
      message: /unknown option --request-timout \(did you mean --request-timeout\?\)/,
    },
    { argv: ['plan', '--json', '--markdown'], message: /--json and --markdown exclude each other/ },
    { argv: ['plan', 'extra'], message: /unexpected argument 'extra'/ },
    { argv: ['help', 'nothing'], message: /^help takes one command name, found 'nothing'$/ },
    { argv: ['unlock'], message: /^unlock needs the run id the lock names \(e\.g\. [^)]*lease\.json` show it\)$/ },
    { argv: ['unlock', 'a', 'b'], message: /unlock takes the run id the lock names .*found 'a b'/ },
    { argv: ['unlock', '../lease'], message: /unlock takes the run id the lock names .*found '..\/lease'/ },
    { argv: ['plan', '--base-url', 'not a url'], message: /is not a URL/ },
    { argv: ['plan', '--base-url', 'ftp://om/api'], message: /must be http or https/ },
    { argv: ['plan', '--base-url', 'https://u:p@om/api'], message: /must not carry credentials/ },
    { argv: ['plan'], env: { OPSMAN_BASE_URL: 'nope' }, message: /is not a URL/ },
    {
      argv: ['plan', '--base-url', 'http://127.0.0.1:8080/'],
      message: /^--base-url must end in \/api\/public\/v1\.0/,
    },
    // The refusal names where the bad URL came from: a stale variable is not found by reading the command line.
    {
      argv: ['plan'],
      env: { OPSMAN_BASE_URL: 'https://om:8443/api' },
      message: /^OPSMAN_BASE_URL must end in \/api\/public\/v1\.0.*its path is '\/api'/,
    },
    {
      argv: ['plan', '--base-url', 'ftp://om/api'],
      env: { OPSMAN_BASE_URL: 'https://om:8443/api/public/v1.0' },
      message: /^--base-url must be http or https/,
    },
    // Terraform spells long options with one dash: named as typed, with the spelling that works here.
    {
      argv: ['apply', '-auto-approve'],
      message: /^unknown option -auto-approve: options take two dashes \(--auto-approve\)$/,
    },
    { argv: ['plan', '-detailed-exitcode'], message: /^unknown option -detailed-exitcode: options take two dashes/ },
    { argv: ['plan', '-out=plan.json'], message: /^unknown option -out: options take two dashes \(--out\)$/ },
    // kubectl, argocd and friends: their spelling, and ours.
    { argv: ['plan', '-o', 'json'], message: /^unknown option -o \(use --json or --markdown\)$/ },
    { argv: ['plan', '--output=json'], message: /^unknown option --output \(use --json or --markdown\)$/ },
    { argv: ['apply', '--yes'], message: /^unknown option --yes \(use --auto-approve\)$/ },
    { argv: ['apply', '-y'], message: /^unknown option -y \(use --auto-approve\)$/ },
    // An option that takes one value, given twice with two values: one would be ignored in silence.
    {
      argv: ['apply', '--mode', 'observe', '--auto-approve', '--mode=apply'],
      message: /^--mode is given twice, with different values \('observe' and 'apply'\): give it once$/,
    },
    { argv: ['apply', '--plan', 'a.json', '--plan', 'b.json'], message: /^--plan is given twice/ },
    {
      argv: ['plan', '--base-url', 'https://u:pw@om/api/public/v1.0', '--base-url', 'https://om/api/public/v1.0'],
      message:
        /^--base-url is given twice, with different values \(a value of 31 characters and 'https:\/\/om\/api\/public\/v1\.0'\): give it once$/,
    },
  ];
  it.each(CASES)('$argv', ({ argv, env, message }) => {
    const caught = refusalOf(argv, env ?? {});
    expect(caught.exitCode).toBe(2);
    expect(caught.message).toMatch(message);
  });

  it.each([
    { argv: ['plan', '--private-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['plan', '--private-key', '0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['apply', '--auto-approve', '--api-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['plan', '--privatekey=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['plan', '-private-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    // After `--` the word is a positional no command takes: refused as an unexpected argument, it was echoed whole.
    { argv: ['plan', '--', '--private-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['--', '--private-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
    { argv: ['unlock', '--', '--api-key=0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f'] },
  ])('a refused private key flag never echoes the key: $argv', ({ argv }) => {
    // Refused: a parse that accepted the flag would leave nothing to check below.
    const caught = refusalOf(argv, {});
    expect(caught.exitCode).toBe(2);
    expect(caught.message).toMatch(/^--?(private-?|api-)key is not an option: /);
    expect(caught.message).not.toContain('0c9e8d7f');
  });
});

describe('parseInvocation: a stray word that may hold credentials', () => {
  it.each([
    {
      argv: ['plan', '--', 'https://ops:s3cr3t-pass@om.example.com'],
      shown: /unexpected argument a value of 38 characters/,
    },
    { argv: ['plan', 'ops:s3cr3t-pass@om.example.com'], shown: /unexpected argument a value of 30 characters/ },
    { argv: ['unlock', 'run-1', 'https://ops:s3cr3t-pass@om'], shown: /found a value of 32 characters/ },
  ])('is measured, never quoted: $argv', ({ argv, shown }) => {
    const caught = refusalOf(argv, {});
    expect(caught.message).toMatch(shown);
    expect(caught.message).not.toContain('s3cr3t');
  });
});

describe('parseInvocation: options before the command', () => {
  it.each([
    { argv: ['--desired', 'desired-state', 'validate', '--bogus'], command: 'validate' },
    { argv: ['--state-dir', 'plan', 'apply', '--bogus'], command: 'apply' },
    { argv: ['--desired=ds', 'plan', '--bogus'], command: 'plan' },
    { argv: ['--json', '--', 'observe', '--bogus'], command: 'observe' },
  ])('a usage error of $argv points at the help of $command, not at an option value', ({ argv, command }) => {
    expect(commandWord(argv)).toBe(command);
    const caught = refusalOf(argv, {});
    expect(caught.command).toBe(command);
  });

  it('the command word is the first word after `--`, whatever it looks like (parseArgs reads it so)', () => {
    expect(commandWord(['--', '-x', 'plan'])).toBe('-x');
  });
});

describe('parseInvocation: unlock', () => {
  it('takes one run id, or --help alone', () => {
    expect(parseInvocation(['unlock', '20261121T184351Z-867bac', '--state-dir', 'st'], {})).toMatchObject({
      command: 'unlock',
      args: ['20261121T184351Z-867bac'],
      options: { stateDir: 'st' },
    });
    expect(parseInvocation(['unlock', '--help'], {})).toMatchObject({ command: 'unlock', options: { help: true } });
  });
});
