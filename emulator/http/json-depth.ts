/**
 * The nesting depth of JSON text, measured before parsing. V8's JSON.parse reads any depth, but JSON.stringify (every
 * answer, `pretty=true` of a stored version manifest) recurses and throws past a few thousand levels: a body that could
 * be stored but never answered. Bodies deeper than MAX_JSON_DEPTH are refused up front, as Jackson (the real
 * product's parser) refuses those deeper than its default limit of 1000.
 */

/** The deepest nesting of objects and arrays a request body may have. */
export const MAX_JSON_DEPTH = 1000;

/** True when `text` opens more than `max` objects or arrays inside one another (brackets inside strings ignored). */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
