/** Reads a seed: a path to a JSON or YAML file, or an object given in-process. */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { SeedError } from '../errors.ts';

/** The example seed shipped with the emulator. */
export const EXAMPLE_SEED_PATH = fileURLToPath(new URL('../seeds/example.yaml', import.meta.url));

/** Parses seed text: JSON when the name ends in .json or the text starts with `{`, YAML otherwise. */
export function parseSeedText(text: string, source: string): unknown {
  const json = source.endsWith('.json') || text.trimStart().startsWith('{');
  try {
    return json ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100, uniqueKeys: true, prettyErrors: true });
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
    const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new SeedError(path, [`cannot read the file (${code})`]);
  }
  return { doc: parseSeedText(text, path), source: path };
}
