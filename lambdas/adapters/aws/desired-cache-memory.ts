/**
 * In-memory DesiredStateCache for warm Lambda invocations: the last few entries of this container, in front of an
 * optional slower cache (S3). A get that misses memory asks the next layer and remembers what it returns; a put goes
 * to memory first, then to the next layer (whose failure is the caller's to ignore).
 */
import type { DesiredStateCache } from '../../core/ports.ts';

/** Options of MemoryDesiredStateCache. */
export interface MemoryDesiredCacheOptions {
  /**
   * Entries kept in memory, most recently used first (default 4: two desired states, each a state entry of about 7 MB
   * at 1,000 x 20 alerts and its tag entry of about 0.1 MB).
   */
  maxEntries: number;
  /** The cache behind memory, if any. */
  next?: DesiredStateCache;
}

/** Defaults of MemoryDesiredCacheOptions. */
export const DEFAULT_MEMORY_DESIRED_CACHE_OPTIONS: MemoryDesiredCacheOptions = { maxEntries: 4 };

/** A small LRU of cache entries, optionally backed by another cache. */
export class MemoryDesiredStateCache implements DesiredStateCache {
  readonly #entries = new Map<string, string>();
  readonly #maxEntries: number;
  readonly #next: DesiredStateCache | undefined;

  constructor(options: Partial<MemoryDesiredCacheOptions> = {}) {
    const { maxEntries, next } = { ...DEFAULT_MEMORY_DESIRED_CACHE_OPTIONS, ...options };
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError('MemoryDesiredStateCache maxEntries must be a positive integer');
    }
    this.#maxEntries = maxEntries;
    this.#next = next;
  }

  async get(key: string): Promise<string | undefined> {
    const held = this.#entries.get(key);
    if (held !== undefined) {
      this.#remember(key, held);
      return held;
    }
    const text = await this.#next?.get(key);
    if (text !== undefined) this.#remember(key, text);
    return text;
  }

  async put(key: string, text: string): Promise<void> {
    this.#remember(key, text);
    await this.#next?.put(key, text);
  }

  /** Forgets every entry held in memory (the next layer keeps its own). */
  clear(): void {
    this.#entries.clear();
  }

  #remember(key: string, text: string): void {
    // A Map iterates in insertion order: re-inserting makes `key` the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, text);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}
