// Scenario: a command's --help lists the environment variables that command reads and only the exit codes it can
// give: docs/cli.md says 130 is plan, observe, apply, archive, export's and the demo's (whose steps run them; the others have
// no Ctrl-C handling: SIGTERM ends them with 143), and --detailed-exitcode is plan and observe's.
import { describe, expect, it } from 'vitest';
import { commandHelp, topLevelHelp } from '../../../lambdas/cli/help.ts';

describe('command help: environment and exit codes', () => {
  it.each(['plan', 'apply', 'observe', 'archive', 'export', 'demo'] as const)('%s lists 130', (command) => {
    expect(commandHelp(command)).toMatch(/^ {2}130 {2}stopped by Ctrl-C, SIGTERM or SIGHUP/m);
  });

  it.each(['validate', 'schema', 'unlock'] as const)('%s lists no 130', (command) => {
    expect(commandHelp(command)).not.toContain('130');
  });

  it.each(['validate', 'apply', 'archive', 'schema', 'demo', 'unlock'] as const)(
    '%s does not speak of --detailed-exitcode, which it does not take',
    (command) => {
      expect(commandHelp(command)).not.toContain('--detailed-exitcode');
    },
  );

  it.each([
    [
      'plan',
      ['OPSMAN_BASE_URL', 'OPSMAN_PUBLIC_KEY', 'OPSMAN_PRIVATE_KEY', 'OPSMAN_SECRET_', 'HTTPS_PROXY', 'NO_COLOR'],
    ],
    ['apply', ['OPSMAN_PUBLIC_KEY', 'OPSMAN_FINGERPRINT_KEY', 'OPSMAN_DESIRED_CACHE']],
    ['archive', ['OPSMAN_BASE_URL', 'OPSMAN_PRIVATE_KEY', 'OPSMAN_DESIRED_CACHE', 'HTTPS_PROXY']],
    ['validate', ['NO_COLOR', 'FORCE_COLOR']],
  ] as const)('%s lists the environment variables it reads', (command, names) => {
    const help = commandHelp(command);
    expect(help).toContain('Environment:');
    for (const name of names) expect(help).toContain(`  ${name}`);
  });

  it('archive lists no secret variables (it resolves no secrets)', () => {
    expect(commandHelp('archive')).not.toContain('OPSMAN_SECRET_');
  });

  it.each(['schema', 'unlock'] as const)('%s has no environment section', (command) => {
    expect(commandHelp(command)).not.toContain('Environment:');
  });
});

describe('command help: what --version does', () => {
  it('the emulator help does not promise --version, which the emulator refuses', () => {
    expect(commandHelp('emulator')).not.toContain('--version');
    expect(commandHelp('plan')).toContain('--help and --version always work');
  });
});

describe('help: --out, which two commands take', () => {
  it("the overview's --out line speaks of export's directory too, each command's help of its own only", () => {
    const line = topLevelHelp()
      .split('\n')
      .find((l) => l.trimStart().startsWith('--out'));
    expect(line).toMatch(/plan: save the plan as JSON.*export: write YAML under DIR/);
    expect(commandHelp('plan')).toMatch(/^ {2}--out FILE {15}save the plan as JSON for `apply --plan FILE`$/m);
    expect(commandHelp('plan')).not.toContain('export:');
    expect(commandHelp('export')).toMatch(/^ {2}--out DIR {16}write DIR\/project-<id>\.yaml per project/m);
  });
});

describe('help: --project, which takes a name except in export', () => {
  it.each(['plan', 'apply', 'observe', 'archive'] as const)('%s says a metadata.name works as well as an id', (c) => {
    expect(commandHelp(c)).toMatch(/^ {2}--project ID {13}only this project, by id or metadata\.name; repeatable/m);
  });
  it('export says ids (it reads projects git may not have)', () => {
    expect(commandHelp('export')).toMatch(/^ {2}--project ID {13}a project to export \(24 hex\)/m);
    expect(commandHelp('export')).not.toContain('metadata.name');
  });
});
