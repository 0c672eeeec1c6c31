/** The emulator's shared core: state, persistence, limits, audit events. Handlers reach everything through it. */
import type { DataFileWriter } from './store/data-file.ts';
import { EventIndex } from './store/event-index.ts';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './store/limits.ts';
import type { EventRec, State } from './store/state.ts';

/** The live core of one emulator instance. */
export class EmulatorCore {
  /** The current state (replaced on reset). */
  state: State;
  /** Events by project and organization; follows `state.events` (event-index.ts). */
  readonly eventIndex = new EventIndex();

  constructor(
    state: State,
    private readonly writer: DataFileWriter | null,
    /** Caps on what clients may store (limits.ts). */
    readonly limits: Readonly<StoreLimits> = DEFAULT_STORE_LIMITS,
    /** The clock (ms since epoch). */
    readonly now: () => number = Date.now,
  ) {
    this.state = state;
  }

  /** Makes every mutation so far durable (no-op without a data file). Call before answering a mutation. */
  async commit(): Promise<void> {
    if (this.writer) await this.writer.save();
  }

  /** Appends an event (the newest). */
  addEvent(event: EventRec): void {
    this.state.events.push(event);
  }
}
