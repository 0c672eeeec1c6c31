// Scenario: large plans render: a project with more change lines than a spread may pass renders as Markdown (it threw RangeError), and the unmanaged counts of many targets are taken from one pass over the unmanaged list, not one per target.
import { describe, expect, it } from 'vitest';
import type { TargetRef } from '../../../lambdas/core/model.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { change, PAYMENTS, plan } from '../../helpers/cli-plans.ts';

describe('renderers on large plans', () => {
  it('Markdown of one project with 200,000 change lines: rendered within its budget, the section counted', () => {
    const after = { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] };
    const changes = Array.from({ length: 40_000 }, (_, i) =>
      change({ key: `k${String(i).padStart(5, '0')}`, action: 'create', after }),
    );
    const md = renderPlanMarkdown(plan(changes));
    expect(md.length).toBeLessThanOrEqual(65_000);
    expect(md).toContain('**Plan: 40000 to create');
    expect(md).toContain('_1 more target(s) with changes are not shown');
  });

  it("reads each unmanaged object's target once per render, however many targets there are", () => {
    const targets: TargetRef[] = Array.from({ length: 40 }, (_, i) => ({ ...PAYMENTS, id: `p${i}`, name: `n${i}` }));
    let reads = 0;
    const unmanaged = targets.map((target, i) => {
      const u = { kind: 'alertConfig' as const, id: `u${i}`, summary: 'HOST_DOWN (enabled)' };
      Object.defineProperty(u, 'target', {
        enumerable: true,
        get: () => {
          reads++;
          return target;
        },
      });
      return u as typeof u & { target: TargetRef };
    });
    const p = plan(
      targets.map((target) => change({ target, action: 'create' })),
      { unmanaged },
    );
    const text = renderPlanText(p);
    expect(text.split('(1 unmanaged object left alone').length - 1).toBe(40);
    expect(reads).toBeLessThanOrEqual(40);
    reads = 0;
    const md = renderPlanMarkdown(p);
    expect(md.split('(1 unmanaged object left alone').length - 1).toBe(40);
    expect(reads).toBeLessThanOrEqual(40);
  });
});
