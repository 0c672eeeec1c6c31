/**
 * Builds each handler as the stack bundles it (esbuild, minified ESM for node24, AWS SDK external, the createRequire
 * banner) with a metafile, and reports its size and its biggest inputs. The benchmark calls `measureBundles()`; the
 * bundle test checks the 1.1 MB budget with it and with the real CDK bundling.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from './function.ts';

/** The handlers the stack deploys, by function name. */
export const HANDLER_ENTRIES: Readonly<Record<string, string>> = {
  reconcile: 'lambdas/handlers/reconcile.ts',
  archive: 'lambdas/handlers/archive.ts',
};

/**
 * The size budget of one handler bundle (bytes). Raised from 1 MB when the bundles reached 1,008 KB with the client's
 * TLS, foreign-answer and stall diagnostics, undici's root module then being 536 KB of each; since undici's parts are
 * loaded from their own modules (lambdas/opsman/undici-parts.ts) the bundles are about 881 KB.
 */
export const BUNDLE_BUDGET_BYTES = 1_100_000;

/** One bundle's numbers. */
export interface BundleMetrics {
  name: string;
  entry: string;
  /** Size of the minified index.mjs, in bytes. */
  bytes: number;
  /** Size of its source map, in bytes. */
  mapBytes: number;
  /** Largest contributors by package (or `lambdas/`, `emulator/`...), bytes in the output, biggest first. */
  topInputs: { input: string; bytes: number }[];
  /** Absolute path of the bundle, when `keep` was set (else it is deleted). */
  path?: string;
}

/** Options of {@link measureBundles}. */
export interface MeasureOptions {
  /** Repository root (default: the parent of infra/). */
  projectRoot?: string;
  /** Keep the built files in this directory instead of a deleted temp directory. */
  keepIn?: string;
  /** How many top inputs to list per bundle (default 8). */
  topN?: number;
}

/** Package (or top folder) an esbuild input path belongs to. */
export function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (match?.[1]) return match[1];
  return input.split('/')[0] ?? input;
}

/** Builds every handler and returns its metrics. */
export async function measureBundles(options: MeasureOptions = {}): Promise<BundleMetrics[]> {
  const root = options.projectRoot ?? resolve(import.meta.dirname, '..');
  const outRoot = options.keepIn ?? (await mkdtemp(join(tmpdir(), 'opsman-bundles-')));
  try {
    const results: BundleMetrics[] = [];
    for (const [name, entry] of Object.entries(HANDLER_ENTRIES)) {
      const outfile = join(outRoot, name, 'index.mjs');
      const result = await build({
        absWorkingDir: root,
        entryPoints: [join(root, entry)],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node24',
        minify: true,
        sourcemap: true,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        external: ['@aws-sdk/*'],
        banner: { js: ESM_REQUIRE_BANNER },
        metafile: true,
        logLevel: 'silent',
      });
      const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('.mjs'))?.[1];
      const byPackage = new Map<string, number>();
      for (const [input, info] of Object.entries(output?.inputs ?? {})) {
        const key = packageOf(input);
        byPackage.set(key, (byPackage.get(key) ?? 0) + info.bytesInOutput);
      }
      const metrics: BundleMetrics = {
        name,
        entry,
        bytes: (await stat(outfile)).size,
        mapBytes: (await stat(`${outfile}.map`)).size,
        topInputs: [...byPackage.entries()]
          .map(([input, bytes]) => ({ input, bytes }))
          .sort((a, b) => b.bytes - a.bytes)
          .slice(0, options.topN ?? 8),
      };
      if (options.keepIn) metrics.path = outfile;
      results.push(metrics);
    }
    return results;
  } finally {
    if (!options.keepIn) await rm(outRoot, { recursive: true, force: true });
  }
}
