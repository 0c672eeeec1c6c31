/**
 * Regenerates `example.yaml.cache` (the parsed example seed, keyed by the YAML's SHA-256) after editing example.yaml:
 * `npx tsx emulator/seeds/write-cache.ts`. A stale cache is ignored at run time, so forgetting this only costs speed;
 * a unit test fails until it is regenerated.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { EXAMPLE_SEED_PATH, parseSeedText, seedCachePath, seedTextHash } from '../store/seed-read.ts';

const text = await readFile(EXAMPLE_SEED_PATH, 'utf8');
const doc = await parseSeedText(text, EXAMPLE_SEED_PATH);
await writeFile(seedCachePath(EXAMPLE_SEED_PATH), `${JSON.stringify({ sha256: seedTextHash(text), doc })}\n`);
process.stdout.write(`wrote ${seedCachePath(EXAMPLE_SEED_PATH)}\n`);
