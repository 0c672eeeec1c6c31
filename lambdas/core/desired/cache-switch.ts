/**
 * OPSMAN_DESIRED_CACHE, read the same way by the CLI and the functions: on (also unset or empty, `1`, `true`, `yes`)
 * or off (`0`, `false`, `no`), in any case. Anything else is refused: a typo such as `of` must not leave the cache on
 * while its author believes it off.
 */

/** Whether the desired-state cache is on, or why the value is not understood. */
export type DesiredCacheSwitch = { on: boolean; problem?: undefined } | { on?: undefined; problem: string };

/** Reads OPSMAN_DESIRED_CACHE from `env`. The problem quotes at most 20 characters of the value. */
export function desiredCacheSwitch(env: Record<string, string | undefined>): DesiredCacheSwitch {
  const value = env.OPSMAN_DESIRED_CACHE?.trim() ?? '';
  if (/^(off|0|false|no)$/i.test(value)) return { on: false };
  if (/^(on|1|true|yes)?$/i.test(value)) return { on: true };
  return { problem: `OPSMAN_DESIRED_CACHE must be on or off (got "${value.slice(0, 20)}")` };
}
