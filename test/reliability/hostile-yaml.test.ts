// Scenario: a desired-state corpus of hostile YAML (alias bomb, 5 MB file, binary, duplicate keys, deep nesting, unknown kind) is refused with precise issues before any API call.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../../lambdas/core/desired/index.ts';
import { DesiredStateInvalidError } from '../../lambdas/core/errors.ts';
import { type Harness, rewriteDesired, startHarness } from '../helpers/reliability-harness.ts';
import { hostileCorpus } from '../helpers/reliability-hostile.ts';

describe('hostile desired state', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 2, alerts: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(hostileCorpus().map((c) => [c.name, c] as const))(
    'refuses the %s with a precise issue and makes no API call',
    async (_name, hostile) => {
      await rewriteDesired(h, h.world);
      const path = join(h.paths.desiredDir, hostile.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, hostile.bytes);
      await h.admin.clearRequests();

      for (const command of ['plan', 'apply'] as const) {
        const run = await h.run({ command });
        expect(run.report).toBeUndefined();
        expect(run.error).toBeInstanceOf(DesiredStateInvalidError);
        const issues = (run.error as DesiredStateInvalidError).issues as ValidationIssue[];
        const mine = issues.filter((i) => i.file === hostile.path);
        expect(mine.length).toBeGreaterThanOrEqual(1);
        // Only the hostile file is blamed, at a real position, with a message naming the problem.
        expect(issues.every((i) => i.file === hostile.path)).toBe(true);
        expect(mine[0]?.line).toBeGreaterThanOrEqual(1);
        expect(mine[0]?.column).toBeGreaterThanOrEqual(1);
        expect(mine[0]?.message).toMatch(hostile.message);
      }
      const log = await h.admin.requests();
      expect({ total: log.total, challenges: log.challenges }).toEqual({ total: 0, challenges: 0 });
    },
  );
});
