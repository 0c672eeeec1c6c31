// Scenario: the real CDK bundling of each function (local esbuild, no Docker): minified ESM with the createRequire banner, source maps, the CA bundle, under the 1.1 MB budget, at the size the docs state.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/build-app.ts';
import { BUNDLE_BUDGET_BYTES, HANDLER_ENTRIES, measureBundles, packageOf } from '../../infra/bundle-metrics.ts';
import { CA_BUNDLE_FILE } from '../../infra/function.ts';

/** The bundle sizes a page states ("each bundle is about 881 KB", "Bundles are ~881 KB"), in bytes. */
function statedBundleSizes(text: string): number[] {
  const unit = { KB: 1_000, MB: 1_000_000 } as const;
  return [...text.matchAll(/(?:bundle is about|Bundles are ~)\s*([\d.]+) (KB|MB)/gi)].map(
    (m) => Number(m[1]) * unit[m[2] as keyof typeof unit],
  );
}

describe('function bundles', () => {
  it('CDK bundles each function locally into one minified ESM file under the budget, with its map and the CA bundle', async () => {
    const outdir = await mkdtemp(join(tmpdir(), 'opsman-bundle-'));
    try {
      const { app, stack } = buildApp(new App({ outdir, context: { caBundle: 'test/infra/fixtures/ca.pem' } }));
      expect(() => app.synth()).not.toThrow();
      const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')).filter(
        (f) => (f as { Properties: { Runtime?: string } }).Properties.Runtime === 'nodejs24.x',
      );
      expect(functions).toHaveLength(Object.keys(HANDLER_ENTRIES).length);
      for (const fn of functions) {
        const key = String((fn as { Properties: { Code: { S3Key: unknown } } }).Properties.Code.S3Key);
        const dir = join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
        const bundle = join(dir, 'index.mjs');
        expect(existsSync(bundle)).toBe(true);
        expect(statSync(bundle).size).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
        expect(existsSync(`${bundle}.map`)).toBe(true);
        const head = readFileSync(bundle, 'utf8').slice(0, 300);
        expect(head).toContain('createRequire');
        expect(readFileSync(bundle, 'utf8')).not.toMatch(/from\s*"@aws-lambda-powertools/);
        expect(readFileSync(join(dir, CA_BUNDLE_FILE), 'utf8')).toContain('BEGIN CERTIFICATE');
      }
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  }, 240_000);

  it('measureBundles reports each handler under the budget with its biggest inputs', async () => {
    const metrics = await measureBundles();
    expect(metrics.map((m) => m.name)).toEqual(Object.keys(HANDLER_ENTRIES));
    for (const m of metrics) {
      expect(m.bytes).toBeGreaterThan(100_000);
      expect(m.bytes).toBeLessThanOrEqual(BUNDLE_BUDGET_BYTES);
      expect(m.mapBytes).toBeGreaterThan(0);
      expect(m.topInputs.map((i) => i.input)).toContain('lambdas');
      expect(m.topInputs.some((i) => i.input.startsWith('@aws-sdk/'))).toBe(false);
    }
    // The size the README and docs/aws.md state (a reader sizing the budget trusts it) is each bundle's, within 3%.
    for (const [doc, count] of [
      ['README.md', 1],
      ['docs/aws.md', 2],
    ] as const) {
      const stated = statedBundleSizes(readFileSync(join(import.meta.dirname, '../..', doc), 'utf8'));
      expect(stated, doc).toHaveLength(count);
      for (const bytes of stated)
        for (const m of metrics) expect(Math.abs(m.bytes - bytes) / m.bytes, `${doc}: ${m.name}`).toBeLessThan(0.03);
    }
  });

  it.each([
    ['node_modules/undici/lib/core/util.js', 'undici'],
    ['node_modules/@aws-lambda-powertools/logger/lib/esm/Logger.js', '@aws-lambda-powertools/logger'],
    ['lambdas/handlers/reconcile.ts', 'lambdas'],
  ])('packageOf(%j) is %j', (input, expected) => {
    expect(packageOf(input)).toBe(expected);
  });
});
