// Scenario: every broken desired state under test/fixtures/desired/broken renders exactly its expected compiler-style errors.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatIssues, loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import type { DesiredStateSource } from '../../../lambdas/core/ports.ts';
import { MemorySource } from './memory-source.ts';

const CORPUS = path.join(import.meta.dirname, '../../fixtures/desired/broken');
// UPDATE_GOLDEN=1 rewrites the expected files; review the diff before committing.
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const cases = readdirSync(CORPUS)
  .filter((name) => !name.endsWith('.expected.txt') && !name.startsWith('.'))
  .sort();

/** Files ending `.raw` are presented without that suffix: it keeps deliberately broken YAML/JSON away from Biome. */
const presented = (name: string) => name.replace(/\.raw$/, '');

function sourceFor(name: string): DesiredStateSource {
  const full = path.join(CORPUS, name);
  if (!statSync(full).isDirectory()) return new MemorySource({ [presented(name)]: readFileSync(full) });
  const files: Record<string, Uint8Array> = {};
  for (const entry of readdirSync(full, { recursive: true }) as string[]) {
    const file = path.join(full, entry);
    if (statSync(file).isFile() && !entry.endsWith('.gitkeep')) {
      files[presented(entry.split(path.sep).join('/'))] = readFileSync(file);
    }
  }
  return new MemorySource(files);
}

describe('golden error messages', () => {
  it('has a corpus', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)('%s', async (name) => {
    const result = await loadDesiredState(sourceFor(name));
    expect(result.ok).toBe(false);
    const actual = result.ok ? '' : formatIssues(result.issues);
    const expectedFile = path.join(CORPUS, `${presented(name).replace(/\.ya?ml$/, '')}.expected.txt`);
    if (UPDATE) writeFileSync(expectedFile, actual);
    expect(actual).toBe(readFileSync(expectedFile, 'utf8'));
  });
});
