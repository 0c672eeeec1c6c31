/**
 * Keys for exported alert configs. Ops Manager alert configs have no name, so `export` derives one from the event type
 * (`HOST_DOWN` -> `host-down`), disambiguated by creation order (`host-down`, `host-down-2`, ...): the same live
 * configs always get the same keys, and a config created later never renames an older one.
 */
import { creationOrder } from '../timestamp.ts';

/** The fields key derivation reads from a live alert config. */
export interface KeyedConfig {
  id: string;
  eventTypeName: string;
  created?: string;
}

/** Longest key the desired-state schema accepts (letters, digits, `.`, `_`, `-`; at most 63 characters). */
const MAX_KEY_LENGTH = 63;
/** Room kept for a `-<n>` suffix, so a suffixed key never needs to cut its base further. */
const SUFFIX_ROOM = 6;

/** The readable base of a key: the event type in lower-case kebab form, only characters a key may hold. */
export function keyBase(eventTypeName: string): string {
  const base = eventTypeName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_KEY_LENGTH - SUFFIX_ROOM)
    .replace(/-+$/, '');
  return base === '' ? 'alert' : base;
}

/**
 * A unique key per config id. Configs claim keys in creation order: the first of an event type gets the bare base,
 * later ones the lowest free `-2`, `-3`, ... The result does not depend on the order of `configs`.
 */
export function exportKeys(configs: readonly KeyedConfig[]): Map<string, string> {
  const taken = new Set<string>();
  const keys = new Map<string, string>();
  // Per base, the suffix to try first: every lower one was taken when tried, and a taken key stays taken, so starting
  // there finds the same lowest free suffix without retrying them (n configs of one event type: n tries, not n²/2).
  const nextSuffix = new Map<string, number>();
  for (const config of [...configs].sort(creationOrder)) {
    const base = keyBase(config.eventTypeName);
    let key = base;
    if (taken.has(key)) {
      let n = nextSuffix.get(base) ?? 2;
      for (key = `${base}-${n}`; taken.has(key); key = `${base}-${n}`) n++;
      nextSuffix.set(base, n + 1);
    }
    taken.add(key);
    keys.set(config.id, key);
  }
  return keys;
}
