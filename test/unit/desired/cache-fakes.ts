/**
 * Test helpers of the desired-state cache: a DesiredStateCache over a Map that records its calls and can be told to
 * fail, and the example desired state (or any directory) as an in-memory source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DesiredStateCache } from '../../../lambdas/core/ports.ts';
import { MemorySource } from './memory-source.ts';

/** The example desired state's directory. */
export const EXAMPLE_ROOT = path.join(import.meta.dirname, '../../../desired-state');

/** A cache in a Map; `failGet` / `failPut` make the calls reject. */
export class MapCache implements DesiredStateCache {
  readonly entries = new Map<string, string>();
  readonly gets: string[] = [];
  readonly puts: string[] = [];
  failGet = false;
  failPut = false;

  async get(key: string): Promise<string | undefined> {
    this.gets.push(key);
    if (this.failGet) throw new Error('cache unavailable');
    return this.entries.get(key);
  }

  async put(key: string, text: string): Promise<void> {
    this.puts.push(key);
    if (this.failPut) throw new Error('cache unavailable');
    this.entries.set(key, text);
  }

  /** The one entry held (tests that stored exactly one). */
  only(): [string, string] {
    const all = [...this.entries];
    if (all.length !== 1) throw new Error(`expected one cache entry, found ${all.length}`);
    return all[0] as [string, string];
  }
}

/** Every file under `root` (YAML, JSON, anything), as path -> text. */
export function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full).split(path.sep).join('/')] = readFileSync(full, 'utf8');
  }
  return out;
}

/** A fresh in-memory source over `files`. */
export function sourceOf(files: Record<string, string>): MemorySource {
  return new MemorySource(files);
}
