/**
 * Small runtime pieces of the CLI: the system clock, the stderr progress reporter, run ids and owners, the API-call
 * counter fed by the client's observer, and an archive wrapper that remembers what a run wrote.
 */
import { hostname, userInfo } from 'node:os';
import type { ArchiveStore, Clock, Reporter, RequestObserver } from '../core/ports.ts';
import type { TextSink } from './io.ts';

/** The wall clock. */
export const SYSTEM_CLOCK: Clock = {
  now: () => new Date(),
  sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Progress lines on stderr (`  · reading payments-prod`); metrics are for the Lambdas and are dropped here. */
export function stderrReporter(stderr: TextSink, enabled = true): Reporter {
  return {
    progress(message: string): void {
      if (enabled) stderr.write(`  · ${message}\n`);
    },
    metric(): void {},
  };
}

/** Who runs: `cli:<user>@<host>`, recorded in the lease. */
export function cliOwner(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): keep 'unknown'
  }
  return `cli:${user}@${hostname()}`;
}

/** Counts API calls by `METHOD /path/{template}` for the run report. */
export class ApiCallCounter implements RequestObserver {
  private readonly counts = new Map<string, number>();

  onRequest(event: { method: string; pathTemplate: string }): void {
    const key = `${event.method} ${event.pathTemplate}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Totals so far. */
  snapshot(): { total: number; byEndpoint: Record<string, number> } {
    const byEndpoint: Record<string, number> = {};
    let total = 0;
    for (const [key, n] of [...this.counts].sort(([a], [b]) => (a < b ? -1 : 1))) {
      byEndpoint[key] = n;
      total += n;
    }
    return { total, byEndpoint };
  }
}

/** One object an archive wrapper saw written. */
export interface ArchivedObject {
  key: string;
  location: string;
  created: boolean;
}

/**
 * Wraps an ArchiveStore and records every object written (each key once, with its outcome), so the CLI can say where
 * the report and archives went.
 */
export class RecordingArchiveStore implements ArchiveStore {
  readonly written: ArchivedObject[] = [];

  /** The inner store's, when it has one: the manifest index's conditional rewrite depends on it. */
  readonly getVersioned?: ArchiveStore['getVersioned'];

  /** The inner store's, when it has one, recorded as `put` is: a run report is streamed, not held whole. */
  readonly putPieces?: ArchiveStore['putPieces'];

  constructor(private readonly inner: ArchiveStore) {
    const read = inner.getVersioned;
    if (read !== undefined) this.getVersioned = (key) => read.call(inner, key);
    const stream = inner.putPieces;
    if (stream !== undefined) {
      this.putPieces = async (key, pieces, options) => this.record(await stream.call(inner, key, pieces, options));
    }
  }

  describe(): string {
    return this.inner.describe();
  }

  async put(
    key: string,
    body: string | Uint8Array,
    options?: { contentType?: string; ifAbsent?: boolean; ifVersion?: string },
  ): Promise<{ key: string; created: boolean; location: string }> {
    return this.record(await this.inner.put(key, body, options));
  }

  /**
   * One entry per key, where it was first written: a key written more than once in a run (the manifest index rewritten
   * after losing a race with another run, a damaged copy replaced) is listed once, written if any of its writes wrote
   * it, not once unchanged and again written.
   */
  private record(result: ArchivedObject): ArchivedObject {
    const seen = this.written.find((o) => o.key === result.key);
    if (seen === undefined) this.written.push({ key: result.key, location: result.location, created: result.created });
    else if (result.created) {
      seen.created = true;
      seen.location = result.location;
    }
    return result;
  }

  get(key: string): Promise<Uint8Array | null> {
    return this.inner.get(key);
  }

  /** Location of the run report of `runId`, if one was written. */
  reportLocation(runId: string): string | undefined {
    return this.written.find((o) => o.key.startsWith('reports/') && o.key.endsWith(`/${runId}.json`))?.location;
  }
}
