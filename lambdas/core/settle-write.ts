/**
 * Settles a write whose answer was too large to read. Ops Manager answered it 2xx, so it was applied; the client
 * refused only the body (over `maxResponseBytes`). It then takes the road of a write answered without a body: it
 * counts as applied, and a normal-size re-read records what was stored (verification re-reads an update's target; a
 * create, whose id is in the unread answer, is found by listing and matching). The run warns, naming the limit.
 */
import { appliedWriteTooLarge } from '../opsman/errors.ts';

/** What a write answered, or why it answered nothing readable. */
export interface SettledWrite<T> {
  /** The write's answer; null when it was applied but its answer was too large to read. */
  value: T | null;
  /** Set when the answer was too large to read: says so, with the limit and the sizes (for the run's warnings). */
  warning?: string;
}

/**
 * Runs `write`. An oversized 2xx answer resolves `{value: null, warning}`; every other error is thrown as it is (an
 * oversized non-2xx answer included: nothing says that write took effect).
 */
export async function settleWrite<T>(write: () => Promise<T>): Promise<SettledWrite<T>> {
  try {
    return { value: await write() };
  } catch (error) {
    const tooLarge = appliedWriteTooLarge(error);
    if (tooLarge === undefined) throw error;
    return { value: null, warning: `applied, but the answer was too large to read: ${tooLarge.message}` };
  }
}
