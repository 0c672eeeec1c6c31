// Scenario: large plans render: a project with more change lines than a spread may pass renders as Markdown (it threw RangeError), the unmanaged counts of many targets are taken from one pass over the unmanaged list, not one per target, and long warnings, notes and failures of many causes keep the Markdown within GitHub's comment limit.
import { describe, expect, it } from 'vitest';
import type { TargetRef } from '../../../lambdas/core/model.ts';
import { MARKDOWN_MAX_CHARS, renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
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

  it('Markdown of one project of 20,000 creates renders only the changes that fit the budget before leaving it out', () => {
    let reads = 0;
    const changes = Array.from({ length: 20_000 }, (_, i) => {
      const c = change({ key: `k${String(i).padStart(5, '0')}`, action: 'create' });
      const after = { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] };
      // Read (twice) to render the change's lines: counts the changes rendered.
      Object.defineProperty(c, 'after', {
        enumerable: true,
        get: () => {
          reads++;
          return after;
        },
      });
      return c;
    });
    const md = renderPlanMarkdown(plan(changes));
    expect(md).toContain('_1 more target(s) with changes are not shown');
    // Before: every change's lines were built (40,000 reads) for a section then left out whole.
    expect(reads).toBeLessThan(10_000);
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

  it('Markdown with long warnings and notes and failures of 40 causes: within its budget, the rest counted', () => {
    const after = { eventTypeName: 'HOST_DOWN', enabled: true, matchers: [], notifications: [] };
    // 40 causes (code and phase), three shown each: 120 lines of an Ops Manager error (its detail clipped at 500).
    const failures = Array.from({ length: 200 }, (_, i) => ({
      target: { ...PAYMENTS, id: `p${i}`, name: `project-${i}` },
      phase: 'read' as const,
      message: `GET /groups/p${i}/alertConfigs: ${'m'.repeat(650)}`,
      code: `OPSMAN_CODE_${i % 40}`,
    }));
    const md = renderPlanMarkdown(
      plan([change({ key: 'shown', action: 'create', after })], {
        failures,
        warnings: Array.from({ length: 25 }, (_, i) => `warning ${i} ${'w'.repeat(3000)}`),
        notes: Array.from({ length: 25 }, (_, i) => `note ${i} ${'n'.repeat(3000)}`),
      }),
    );
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(md).toContain('> **Warning:** warning 0 ');
    expect(md).toMatch(/> 2\d more warnings \(in the JSON plan\)/);
    expect(md).toContain('> Note: note 0 ');
    expect(md).toMatch(/> 2\d more notes \(in the JSON plan\)/);
    expect(md).toContain('(OPSMAN\\_CODE\\_0)');
    expect(md).toMatch(/- \.\.\. \d+ more failure line\(s\) not shown, to keep this comment short/);
    // The target's section still fits next to them.
    expect(md).toContain('+ alertConfig "shown"');
  });
});
