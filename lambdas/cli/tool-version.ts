/**
 * Which opsman-gitops this is, for files one run writes and another reads back (saved plans): the package version and
 * a digest of the sources that read, plan, apply and seal. A saved plan applies only with the exact code that made it,
 * as Terraform applies a plan file only with the Terraform version that wrote it.
 *
 * Why a digest of the sources and not the version alone: package.json says 0.1.0 at every commit of a development
 * checkout (and of a fork), so two checkouts whose planning logic differs would pass for the same tool. Not the git
 * commit either: an npm install or a tarball has no .git, and a checkout with uncommitted edits shares its commit with
 * one without. The CLI runs its TypeScript sources as they are (tsx, no build step), so they are on disk wherever it
 * runs, and their digest changes exactly when the code does. Line ends are normalised, so a Windows checkout
 * (autocrlf) matches a Linux one of the same commit.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The identity of one build of the tool. */
export interface ToolVersion {
  /** `version` of package.json ('unknown' when it cannot be read). */
  version: string;
  /** First 16 hex digits of the SHA-256 over the sources (lambdas/ and shared/, *.ts, by path); 'unknown' if unread. */
  sources: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The directories whose code makes and applies a plan (lambdas/ imports shared/; emulator/ and infra/ it never does). */
const SOURCE_DIRS = ['lambdas', 'shared'];

/** `version` of package.json, 'unknown' when it cannot be read. */
async function packageVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function sourcesDigest(): Promise<string> {
  try {
    const hash = createHash('sha256');
    for (const dir of SOURCE_DIRS) {
      for (const file of await sourceFiles(join(ROOT, dir))) {
        const text = (await readFile(file, 'utf8')).replaceAll('\r\n', '\n');
        // Path and length before the text: no two different trees feed the hash the same bytes.
        const path = relative(ROOT, file).split(sep).join('/');
        hash.update(`${path}\0${Buffer.byteLength(text)}\0`).update(text);
      }
    }
    return hash.digest('hex').slice(0, 16);
  } catch {
    return 'unknown';
  }
}

let current: Promise<ToolVersion> | undefined;

/** This process's tool version; computed once (reads package.json and hashes about 200 source files, a few ms). */
export function currentToolVersion(): Promise<ToolVersion> {
  current ??= Promise.all([packageVersion(), sourcesDigest()]).then(([version, sources]) => ({ version, sources }));
  return current;
}

/** Whether two tool versions are the same build. */
export function sameToolVersion(a: ToolVersion, b: ToolVersion): boolean {
  return a.version === b.version && a.sources === b.sources;
}

/** `opsman-gitops 0.1.0 (sources 3f2a9c1d2e4f5a6b)`. */
export function describeToolVersion(v: ToolVersion): string {
  return `opsman-gitops ${v.version} (sources ${v.sources})`;
}

/** A ToolVersion read from a file, or undefined when `value` is not one (a version and digest of plain characters). */
export function readToolVersion(value: unknown): ToolVersion | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { version, sources } = value as Record<string, unknown>;
  if (typeof version !== 'string' || !/^[0-9A-Za-z.+-]{1,64}$/.test(version)) return undefined;
  if (typeof sources !== 'string' || !/^([0-9a-f]{16}|unknown)$/.test(sources)) return undefined;
  return { version, sources };
}
