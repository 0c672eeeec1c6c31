/**
 * Deterministic ids and values for the generators: the same sizes always give the same world, so benchmark runs
 * can be compared and a failure reproduced.
 */
import { createHash } from 'node:crypto';

/** A 24-hex Ops Manager id: a 4-hex prefix naming the kind, then the index in hex. */
export function hexId(prefix: string, index: number): string {
  if (!/^[0-9a-f]{4}$/.test(prefix)) throw new RangeError(`prefix must be 4 hex digits, got ${prefix}`);
  return `${prefix}${index.toString(16).padStart(20, '0')}`;
}

/** A stable pseudo-random string of `length` characters from [0-9a-z], derived from `seed`. */
export function derivedToken(seed: string, length: number): string {
  let out = '';
  let counter = 0;
  while (out.length < length) {
    const digest = createHash('sha256').update(`${seed}#${counter++}`).digest();
    for (const byte of digest) out += (byte % 36).toString(36);
  }
  return out.slice(0, length);
}

/** mulberry32: a tiny seeded PRNG for choices that must repeat across runs. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
