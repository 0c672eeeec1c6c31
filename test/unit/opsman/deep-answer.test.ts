// Scenario: a Digest-protected loopback server answers reads with JSON nested thousands of levels deep (a list, an entity, a settings object, the version manifest); the client refuses each answer naming its route and the bound, instead of handing planning a value that overflows the stack (a bare RangeError) when it is walked.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../lambdas/core/canonical.ts';
import { type OpsManagerClient, OpsManagerResponseError } from '../../../lambdas/opsman/index.ts';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from '../../../lambdas/opsman/json-depth.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** JSON text of a value `levels` arrays deep (1 is `[]`). */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** The version manifest is read without credentials. */
const UNAUTH = { publicPaths: ['/api/public/v1.0/unauth/'] };

async function clientServing(text: (path: string) => string) {
  return (await scriptedClient((req) => ({ text: text(req.pathname) }), cleanups, {}, UNAUTH)).client;
}

/** Each kind of read, the answer text that holds `deep` inside it, and how many levels hold it (envelope, list, item). */
const READS: [string, (c: OpsManagerClient) => Promise<unknown>, (deep: string) => string, number][] = [
  [
    'GET /groups/{groupId}/alertConfigs: the list response (page 1)',
    (c) => c.listAlertConfigs('g1'),
    (deep) => `{"results":[{"id":"a1","x":${deep}}],"links":[],"totalCount":1}`,
    3,
  ],
  [
    'GET /orgs/{orgId}/teams/{teamId}: the response',
    (c) => c.getTeam('o1', 't1'),
    (deep) => `{"id":"t1","x":${deep}}`,
    1,
  ],
  [
    'GET /groups/{groupId}/automationConfig/auditLogRotateConfig: the response',
    (c) => c.getAuditLogRotateConfig('g1'),
    (deep) => `{"sizeThresholdMB":100,"x":${deep}}`,
    1,
  ],
  [
    'GET /unauth/versionManifest: the manifest served',
    (c) => c.getVersionManifest(),
    (deep) => `{"versions":${deep}}`,
    1,
  ],
];

describe('answers nested deeper than any Ops Manager answer', () => {
  it.each([100_000, 5_000, 0])(
    '%i levels inside the answer (0: one level over the bound) are refused, naming the route',
    async (levels) => {
      for (const [what, read, answer, wrap] of READS) {
        const client = await clientServing(() => answer(nested(levels || MAX_ANSWER_DEPTH - wrap + 1)));
        const error = await read(client).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(OpsManagerResponseError);
        expect((error as Error).message).toBe(
          `${what} nests objects and arrays more than ${MAX_ANSWER_DEPTH} levels deep (no Ops Manager answer does)`,
        );
      }
    },
  );

  it('an answer exactly at the bound is read', async () => {
    for (const [, read, answer, wrap] of READS) {
      const client = await clientServing(() => answer(nested(MAX_ANSWER_DEPTH - wrap)));
      await expect(read(client)).resolves.toBeDefined();
    }
  });

  it('without the bound, planning would meet a RangeError walking such an answer (why the bound exists)', () => {
    expect(() => canonicalJson(JSON.parse(`{"x":${nested(100_000)}}`))).toThrow(RangeError);
  });

  it('property: nestsDeeperThan agrees with a recursive count of the depth', () => {
    const depthOf = (v: unknown): number =>
      v === null || typeof v !== 'object' ? 0 : 1 + Math.max(0, ...Object.values(v as object).map(depthOf));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, max) => {
        expect(nestsDeeperThan(value, max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 300 },
    );
  });
});
