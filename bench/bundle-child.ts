/**
 * Bundles the phase child (and with it the reconciler, the client and the local adapters) into one plain ESM file
 * with esbuild, the way the Lambda bundles are built, so the measured process runs compiled JavaScript: its time and
 * peak RSS carry no TypeScript-loader overhead (tsx alone adds about 60 MB of RSS).
 */
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./phase-child.ts', import.meta.url));

/**
 * Bundles one child script `entry` (a .ts file under bench/) into `outDir` as `<name>.mjs`; resolves to its path.
 */
export async function bundleChild(entry: string, outDir: string): Promise<string> {
  const { build } = await import('esbuild');
  const name = basename(entry, '.ts');
  const outfile = join(outDir, `${name}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Unminified: CPU profiles of the child keep readable function names and lines.
    minify: false,
    logLevel: 'silent',
    // CommonJS dependencies inside an ESM bundle need a require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return outfile;
}

/** Builds `phase-child.mjs` into `outDir`; resolves to its path. */
export function bundlePhaseChild(outDir: string): Promise<string> {
  return bundleChild(ENTRY, outDir);
}
