/**
 * Caps on what clients may store. Without them a client looping on POST grows the emulator until the process runs out
 * of memory (and its data file without bound). Only client writes are capped: a seed or a data file may hold more.
 */

/** The caps; every field is a count of stored objects. */
export interface StoreLimits {
  /**
   * Alert configurations per project. A POST that would store one more answers 400
   * MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED, the real product's code for it (Atlas Administration API error codes).
   */
  maxAlertConfigsPerGroup: number;
}

/**
 * The defaults: far above what a real deployment or the benchmark needs (its largest run stores 1,003 alert configs in
 * a project, its default 28), yet small enough that a runaway client stops long before memory does.
 */
export const DEFAULT_STORE_LIMITS: Readonly<StoreLimits> = { maxAlertConfigsPerGroup: 10_000 };
