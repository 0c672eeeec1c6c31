// Scenario: `opsman-gitops emulator --help` states its exit codes as README section 6 and docs/emulator.md do (0 when
// stopped by a signal, 1 when it cannot start, 2 for a usage error), and that a missing data-file directory is created.
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../../emulator/cli-args.ts';

describe('emulator --help', () => {
  it('lists its exit codes', () => {
    expect(USAGE).toContain('Exit codes:');
    expect(USAGE).toMatch(/^ {2}0 {2}stopped by SIGINT or SIGTERM$/m);
    expect(USAGE).toMatch(/^ {2}1 {2}cannot start/m);
    expect(USAGE).toMatch(/^ {2}2 {2}usage error/m);
  });

  it('says the data file directory is created owner-only', () => {
    expect(USAGE).toMatch(/a missing directory\s+created, mode 0700/);
  });
});
