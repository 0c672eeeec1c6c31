/**
 * A graceful Ctrl-C for `archive`, as for the other commands that talk to Ops Manager (interruptible.ts): the first
 * interrupt abandons the reads in flight (none waiting is sent), and no new archive object is written; a write in
 * flight finishes (each object is written whole: a temp file, then a rename or link). The run then ends with what was
 * archived and what was not, and exit 130. Safe to stop anywhere: the manifest's copy is written before the index that
 * lists it and the index before `manifests/latest.json`, a month's usage document is replaced whole, and the next run
 * completes what is missing.
 */
import type { ArchiveStore } from '../core/ports.ts';
import type { InterruptNotices } from './interruptible.ts';

/** What the first and the second interrupt of an archive print. */
export const ARCHIVE_NOTICES: InterruptNotices = {
  first:
    'no new read or write starts; the reads in flight are abandoned, the write in flight finishes (archive objects are written whole). Interrupt again to stop at once.',
  again: 'stopping at once',
};

/** Key prefix of run reports: still written after an interrupt, since the report records it. */
const REPORTS = 'reports/';

/**
 * `store`, refusing every new archive write once `signal` is aborted (the run's report excepted); a write already
 * started finishes. Reads go through.
 */
export class StoppableArchiveStore implements ArchiveStore {
  /** The inner store's, when it has one: the manifest index's conditional rewrite depends on it. */
  readonly getVersioned?: ArchiveStore['getVersioned'];

  /** The inner store's, when it has one (refused after the signal as `put` is): a run report is streamed, not held whole. */
  readonly putPieces?: ArchiveStore['putPieces'];

  constructor(
    private readonly inner: ArchiveStore,
    private readonly signal: AbortSignal,
  ) {
    const read = inner.getVersioned;
    if (read !== undefined) this.getVersioned = (key) => read.call(inner, key);
    const stream = inner.putPieces;
    if (stream !== undefined) {
      this.putPieces = async (key, pieces, options) => {
        this.refuseAfterStop(key);
        return stream.call(inner, key, pieces, options);
      };
    }
  }

  /** Throws for a write that would start after the signal, a run report's excepted. */
  private refuseAfterStop(key: string): void {
    if (this.signal.aborted && !key.startsWith(REPORTS)) {
      throw new Error(`${key}: not written: the archive was stopped before this write started`);
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
    this.refuseAfterStop(key);
    return this.inner.put(key, body, options);
  }

  get(key: string): Promise<Uint8Array | null> {
    return this.inner.get(key);
  }
}
