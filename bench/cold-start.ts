/**
 * Cold start of each Lambda bundle: its size, and the time to import it in a fresh Node process (median of a few
 * processes). Bundles come from `measureBundles()` of infra/bundle-metrics.ts when it exists; otherwise each
 * `lambdas/handlers/*.ts` entry point with an exported `handler` is bundled here with esbuild (everything bundled,
 * minified ESM), which is what the stack ships.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ColdStartResult } from './results.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Environment a handler module needs at import time (dummy values: nothing is called). */
export const HANDLER_ENV: Record<string, string> = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  OPSMAN_BASE_URL: 'http://127.0.0.1:9/api/public/v1.0',
  OPSMAN_CREDENTIALS_SECRET_ID: 'bench/credentials',
  DESIRED_STATE_BUCKET: 'bench-desired',
  STATE_BUCKET: 'bench-state',
  POWERTOOLS_SERVICE_NAME: 'opsman-gitops',
  POWERTOOLS_METRICS_NAMESPACE: 'OpsmanGitops',
};

/** A bundle to measure. */
export interface BundleFile {
  name: string;
  file: string;
  bytes: number;
  note?: string;
}

const IMPORT_SCRIPT =
  'const t=performance.now();try{await import(process.argv[1]);process.stdout.write(String(performance.now()-t))}catch(e){process.stdout.write("ERR "+String(e&&e.message).slice(0,200))}';

/** Imports `file` in a fresh process; resolves to the import time in ms, or an error message. */
export async function timeImport(file: string, env: Record<string, string> = HANDLER_ENV): Promise<number | string> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  await new Promise((resolve) => child.once('close', resolve));
  const ms = Number(out);
  return Number.isFinite(ms) && out !== '' ? ms : out || 'no output';
}

/** Median of numbers (the middle one, or the mean of the two middle ones). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function handlerEntries(): Promise<string[]> {
  const dir = join(ROOT, 'lambdas', 'handlers');
  if (!existsSync(dir)) return [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
  const entries: string[] = [];
  for (const f of files)
    if (/export\s+(const|async function|function)\s+handler\b/.test(await readFile(f, 'utf8'))) entries.push(f);
  return entries.sort();
}

/** Bundles each handler entry point with esbuild into `outDir`. */
export async function bundleHandlers(outDir: string): Promise<BundleFile[]> {
  const entries = await handlerEntries();
  if (entries.length === 0) return [];
  const esbuild = await import('esbuild');
  const out: BundleFile[] = [];
  for (const entry of entries) {
    const name = basename(entry, '.ts');
    const outfile = join(outDir, `${name}.mjs`);
    await esbuild.build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      logLevel: 'silent',
      // CommonJS dependencies inside an ESM bundle need a require().
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    });
    out.push({ name, file: outfile, bytes: (await stat(outfile)).size, note: 'bench esbuild (all bundled)' });
  }
  return out;
}

/**
 * Bundles from infra/bundle-metrics.ts `measureBundles({ keepIn })`, when it exists and names files that exist. The
 * files are kept inside the repository so the AWS SDK, external in the stack's bundles (Lambda's runtime provides
 * it), resolves from node_modules as it would from the runtime.
 */
async function bundlesFromInfra(keepIn: string): Promise<BundleFile[] | null> {
  const module = join(ROOT, 'infra', 'bundle-metrics.ts');
  if (!existsSync(module)) return null;
  // A variable specifier: infra/ is built in parallel and its exact result type is read defensively below.
  const specifier = module;
  const imported = (await import(specifier)) as { measureBundles?: (o: object) => Promise<unknown> | unknown };
  if (typeof imported.measureBundles !== 'function') return null;
  const raw = await imported.measureBundles({ keepIn });
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw as object) : [];
  const out: BundleFile[] = [];
  for (const item of list as Record<string, unknown>[]) {
    const file = [item.file, item.outfile, item.path, item.bundlePath].find((v) => typeof v === 'string') as
      | string
      | undefined;
    const bytes = [item.bytes, item.size, item.sizeBytes].find((v) => typeof v === 'number') as number | undefined;
    const name = String(item.name ?? item.handler ?? (file ? basename(file) : 'bundle'));
    if (file && existsSync(file))
      out.push({
        name,
        file,
        bytes: bytes ?? (await stat(file)).size,
        note: 'infra measureBundles(), AWS SDK external',
      });
  }
  return out.length > 0 ? out : null;
}

/** Where bundles are kept while measured: inside the repository (excluded from lint and typecheck), removed after. */
const KEEP_DIR = join(ROOT, 'bench', 'results', `.bundles-${process.pid}`);

/** Measures every bundle: size, and the median import time over `samples` fresh processes. */
export async function measureColdStarts(options: { outDir: string; samples: number }): Promise<ColdStartResult[]> {
  try {
    return await measure(options);
  } finally {
    await rm(KEEP_DIR, { recursive: true, force: true });
  }
}

async function measure(options: { outDir: string; samples: number }): Promise<ColdStartResult[]> {
  let bundles: BundleFile[] | null = null;
  let note: string | undefined;
  try {
    bundles = await bundlesFromInfra(KEEP_DIR);
  } catch (error) {
    note = `measureBundles() failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  bundles ??= await bundleHandlers(options.outDir);
  const results: ColdStartResult[] = [];
  for (const b of bundles) {
    const times: number[] = [];
    let failure: string | undefined;
    for (let i = 0; i < options.samples; i++) {
      const t = await timeImport(b.file);
      if (typeof t === 'number') times.push(t);
      else failure ??= t;
    }
    const notes = [b.note, note, failure ? `import failed: ${failure}` : undefined].filter(Boolean).join('; ');
    results.push({
      name: b.name,
      bytes: b.bytes,
      importMs: median(times),
      samples: times.length,
      ...(notes ? { note: notes } : {}),
    });
  }
  return results;
}
