/**
 * Reads and saves the working state through the StateStore with its version (optimistic concurrency). A corrupt
 * state is detected and replaced once ownership was recovered; a conflicting write is merged per target and retried.
 */
import { StateConflictError, StateCorruptError } from './errors.ts';
import type { ReconcileState, StateStore } from './ports.ts';
import { cloneState, emptyState } from './state.ts';
import { recordFingerprintKey, recordOpsManager } from './state-origin.ts';

/** The state as read, with what the run needs to save it back. */
export interface LoadedState {
  state: ReconcileState;
  /** The stored state existed (false: first run, or corrupt). */
  existed: boolean;
  corrupt: boolean;
  corruptMessage?: string;
}

/** Holds the working state and its stored version. */
export class StateSession {
  private version: string | null;
  /** Targets whose records this run changed: on a conflict, only these are carried over onto the fresh state. */
  readonly touched = new Set<string>();

  private constructor(
    private readonly store: StateStore,
    readonly loaded: LoadedState,
    /** The stored version as opened (null: nothing stored), kept after saves: what a plan made now is made against. */
    readonly openedVersion: string | null,
  ) {
    this.version = openedVersion;
  }

  /** Reads the state; a corrupt one becomes an empty working state with `corrupt: true`. */
  static async open(store: StateStore, now: string): Promise<StateSession> {
    try {
      const { state, version } = await store.read();
      return new StateSession(
        store,
        { state: state ?? emptyState(now), existed: state !== null, corrupt: false },
        version,
      );
    } catch (error) {
      if (!(error instanceof StateCorruptError)) throw error;
      return new StateSession(
        store,
        { state: emptyState(now), existed: false, corrupt: true, corruptMessage: error.message },
        error.version,
      );
    }
  }

  /** The working state (mutated by apply). */
  get state(): ReconcileState {
    return this.loaded.state;
  }

  /**
   * Writes the working state; on a conflict, merges the touched targets onto the fresh state and retries. `opsManagerUrl`
   * (when known) is recorded as the Ops Manager the state is applied against, and `fingerprintKey` by its check value,
   * as the key the state's fingerprints are made with (state-origin.ts).
   */
  async save(
    stamp: { now: string; runId: string; mode: string; opsManagerUrl?: string; fingerprintKey?: Uint8Array },
    attempts = 3,
  ): Promise<void> {
    const state = this.loaded.state;
    state.updatedAt = stamp.now;
    state.lastRun = { runId: stamp.runId, finishedAt: stamp.now, mode: stamp.mode };
    recordOpsManager(state, stamp.opsManagerUrl);
    recordFingerprintKey(state, stamp.fingerprintKey);
    for (let attempt = 1; ; attempt++) {
      try {
        this.version = await this.store.write(state, this.version);
        return;
      } catch (error) {
        if (!(error instanceof StateConflictError) || attempt >= attempts) throw error;
        // Only a corrupt state is replaced, as open() replaces one. A newer version's state (STATE_TOO_NEW's promise)
        // or one that cannot be read right now (the store failing) is never written over: the other writer's records
        // would be lost. The save fails instead; the next run recovers this run's configs by adoption.
        const fresh = await this.store.read().catch((readError: unknown) => {
          if (!(readError instanceof StateCorruptError)) throw readError;
          return { state: null, version: readError.version ?? error.actualVersion };
        });
        const merged = fresh.state === null ? state : cloneState(fresh.state);
        for (const key of this.touched) {
          const [type, id = ''] = key.split(':') as [string, string];
          if (type === 'project' && state.projects[id] !== undefined) merged.projects[id] = state.projects[id];
          if (type === 'organization' && state.organizations?.[id] !== undefined) {
            merged.organizations ??= {};
            merged.organizations[id] = state.organizations[id];
          }
        }
        merged.updatedAt = state.updatedAt;
        merged.lastRun = state.lastRun;
        recordOpsManager(merged, stamp.opsManagerUrl);
        recordFingerprintKey(merged, stamp.fingerprintKey);
        Object.assign(state, merged);
        this.version = fresh.version;
      }
    }
  }
}
