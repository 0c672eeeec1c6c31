// Scenario: `export --org` takes a 24-hex organization id (lower-cased, as metadata.orgId wants it) and refuses
// anything else with a usage error; every other command refuses --org.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../lambdas/cli/errors.ts';
import { parseInvocation } from '../../../lambdas/cli/options.ts';

const P = '5e2211c17a3e5a48f5497de3';

describe('export --org', () => {
  it('is lower-cased into orgId', () => {
    const { options } = parseInvocation(['export', '--project', P, '--org', '5E2211C17A3E5A48F5497DE0'], {
      OPSMAN_BASE_URL: 'https://om.example.com/api/public/v1.0',
    });
    expect(options.orgId).toBe('5e2211c17a3e5a48f5497de0');
  });

  it.each(['acme', '5e2211c17a3e5a48f5497de', '5e2211c17a3e5a48f5497de0x'])('refuses %s', (value) => {
    let error: unknown;
    try {
      parseInvocation(['export', '--project', P, '--org', value], {});
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(
      `--org expects a 24-hex organization id (e.g. 5e2211c17a3e5a48f5497de0), found '${value}'`,
    );
  });

  it('is refused by plan, naming export', () => {
    expect(() => parseInvocation(['plan', '--org', '5e2211c17a3e5a48f5497de0'], {})).toThrow(
      'plan does not take --org: --org is for export',
    );
  });
});
