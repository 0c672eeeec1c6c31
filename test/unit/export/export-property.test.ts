// Scenario: for live alert configs holding awkward but server-valid values (YAML look-alikes such as `yes`, `null`,
// `0x10`, `.inf`, `: `, ` #`, quotes, trailing spaces, unicode, long strings; thresholds such as 1e-7, 2^53,
// negatives), every config is exported and the exported YAML, read back by the real loader, normalises to exactly the
// live config: what `plan` needs to adopt it; and the bytes do not depend on the order of any list in the answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/load.ts';
import { exportProject } from '../../../lambdas/core/export/export-run.ts';
import { MemoryDesiredSource } from '../../../lambdas/core/export/memory-source.ts';
import { desiredText, liveText } from '../../../lambdas/core/normalise.ts';
import type { AlertConfig } from '../../../lambdas/opsman/types.ts';
import { awkwardAlertBody } from '../../helpers/export-awkward.ts';

const P = '5e2211c17a3e5a48f5497de3';

function live(bodies: Record<string, unknown>[]): AlertConfig[] {
  return bodies.map(
    (body, i) =>
      ({
        id: `6c01${String(i).padStart(20, '0')}`,
        groupId: P,
        created: `2026-09-01T08:00:${String(i % 60).padStart(2, '0')}Z`,
        ...body,
      }) as unknown as AlertConfig,
  );
}

describe('export round trip (property)', () => {
  it('exports every server-valid config, and each loads back to the live normal form', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(awkwardAlertBody('****************1234'), { minLength: 1, maxLength: 4 }),
        async (bodies) => {
          const configs = live(bodies);
          const result = await exportProject({ projectId: P, alertConfigs: configs, singletons: {} });
          expect(result.skipped).toEqual([]);
          const loaded = await loadDesiredState(new MemoryDesiredSource({ 'p.yaml': result.text }));
          if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join('\n'));
          const entries = loaded.state.projects[0]?.alertConfigs ?? [];
          const desired = entries.map((c) => desiredText(toDesiredAlertBody(c))).sort();
          expect(desired).toEqual(configs.map(liveText).sort());
          expect(result.text).not.toMatch(/\*{4,}/);
        },
      ),
      { numRuns: 1000 },
    );
    // 1,000 exports and loads take 5-10 s; on a loaded 2-core machine (Node 22, load average 6.5) they once took 49 s.
  }, 120_000);

  it('gives the same bytes whatever order the list, its notifications and its matchers come in', async () => {
    const bodies = fc.array(awkwardAlertBody('****************1234'), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(bodies, fc.infiniteStream(fc.nat()), async (list, random) => {
        const configs = live(list);
        const shuffle = <T>(items: readonly T[]): T[] => {
          const out = [...items];
          for (let i = out.length - 1; i > 0; i--) {
            const j = (random.next().value as number) % (i + 1);
            [out[i], out[j]] = [out[j] as T, out[i] as T];
          }
          return out;
        };
        const reordered = shuffle(configs).map((c) => ({
          ...c,
          matchers: shuffle(c.matchers),
          notifications: shuffle(c.notifications),
        }));
        const first = await exportProject({ projectId: P, alertConfigs: configs, singletons: {} });
        const second = await exportProject({ projectId: P, alertConfigs: reordered, singletons: {} });
        expect(second.text).toBe(first.text);
        expect(second.secretRefs).toEqual(first.secretRefs);
      }),
      { numRuns: 300 },
    );
  });
});
