/** Reads a seed: a path to a JSON or YAML file, or an object given in-process. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describeFsCause } from '../../shared/fs-cause.ts';
import { SeedError } from '../errors.ts';

/** The example seed shipped with the emulator. */
export const EXAMPLE_SEED_PATH = fileURLToPath(new URL('../seeds/example.yaml', import.meta.url));

/** Path of the parsed-YAML cache (JSON text) next to a seed file: `example.yaml` -> `example.yaml.cache`. */
export function seedCachePath(path: string): string {
  return `${path}.cache`;
}

/** SHA-256 (hex) of seed text, which names the YAML a cache was made from. */
export function seedTextHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The parsed document from the cache next to a YAML seed when it was made from exactly this text, else undefined.
 * Parsing YAML costs a hundred times more than JSON, and every integration test starts an emulator.
 */
async function cachedDoc(path: string, text: string): Promise<unknown> {
  if (!/\.ya?ml$/.test(path)) return undefined;
  try {
    const cache = JSON.parse(await readFile(seedCachePath(path), 'utf8')) as { sha256?: string; doc?: unknown };
    return cache.sha256 === seedTextHash(text) ? cache.doc : undefined;
  } catch {
    return undefined;
  }
}

/** Parses seed text: JSON when the name ends in .json or the text starts with `{`, YAML otherwise. */
export async function parseSeedText(text: string, source: string): Promise<unknown> {
  const json = source.endsWith('.json') || text.trimStart().startsWith('{');
  try {
    if (json) return JSON.parse(text);
    const { parse } = await import('yaml');
    return parse(text, { maxAliasCount: 100, uniqueKeys: true, prettyErrors: true });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new SeedError(source, [`not valid ${json ? 'JSON' : 'YAML'}: ${message}`]);
  }
}

/** Loads a seed document (not yet validated) and names its source for messages. */
export async function readSeed(seed: string | object | undefined): Promise<{ doc: unknown; source: string }> {
  if (seed !== undefined && typeof seed === 'object')
    return { doc: structuredClone(seed), source: '(in-process seed)' };
  const path = seed ?? EXAMPLE_SEED_PATH;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // In words, as the TLS and data files are (`my-seed.yaml does not exist (ENOENT)`), not the bare errno code.
    throw new SeedError(path, [`cannot read the file: ${describeFsCause(path, err, 'read')}`]);
  }
  const cached = await cachedDoc(path, text);
  return { doc: cached ?? (await parseSeedText(text, path)), source: path };
}
