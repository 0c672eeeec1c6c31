// Scenario: the Lambda's desired-state cache is on by default (memory in front of S3 cache/desired/), OPSMAN_DESIRED_CACHE=off turns it off, and a bad value or an overlapping prefix is a config problem.
import { describe, expect, it } from 'vitest';
import { MemoryDesiredStateCache } from '../../../../lambdas/adapters/aws/desired-cache-memory.ts';
import { DESIRED_CACHE_PREFIX, readConfig } from '../../../../lambdas/handlers/config.ts';
import { ConfigError } from '../../../../lambdas/handlers/errors.ts';
import { type ApiFactory, Runtime } from '../../../../lambdas/handlers/runtime.ts';

const BASE = {
  OPSMAN_BASE_URL: 'https://om.corp:8443/api/public/v1.0',
  OPSMAN_CREDENTIALS_SECRET_ID: 'opsman/credentials',
  DESIRED_STATE_BUCKET: 'desired',
  STATE_BUCKET: 'data',
};

const noApi: ApiFactory = () => {
  throw new Error('not used');
};

describe('OPSMAN_DESIRED_CACHE', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['on', undefined],
    ['TRUE', undefined],
    ['off', 'off'],
    ['Off', 'off'],
    ['0', 'off'],
    ['no', 'off'],
  ])('%j -> desiredCache %j', (value, expected) => {
    const env = value === undefined ? BASE : { ...BASE, OPSMAN_DESIRED_CACHE: value };
    expect(readConfig(env).desiredCache).toBe(expected);
  });

  it('refuses other values, and a desired prefix that would hold the cache entries', () => {
    expect(() => readConfig({ ...BASE, OPSMAN_DESIRED_CACHE: 'sometimes' })).toThrow(
      'OPSMAN_DESIRED_CACHE must be on or off (got "sometimes")',
    );
    const same = { ...BASE, STATE_BUCKET: 'desired', DESIRED_STATE_PREFIX: 'cache/' };
    expect(() => readConfig(same)).toThrow(ConfigError);
    expect(() => readConfig(same)).toThrow(`the desired-state cache (${DESIRED_CACHE_PREFIX}) overlaps`);
    expect(readConfig({ ...same, OPSMAN_DESIRED_CACHE: 'off' }).desiredCache).toBe('off');
  });

  it('the runtime builds the memory + S3 cache unless it is off', () => {
    expect(new Runtime(readConfig(BASE), noApi).desiredCache).toBeInstanceOf(MemoryDesiredStateCache);
    expect(new Runtime(readConfig({ ...BASE, OPSMAN_DESIRED_CACHE: 'off' }), noApi).desiredCache).toBeUndefined();
  });
});
