/**
 * JSON text produced piece by piece, so that a large document (a 20,000-change run report, the state of 1,000
 * projects) is never held as one giant string next to its byte copy: the pieces are hashed and written one after
 * the other, or encoded straight into one exactly sized byte array. Concatenated, the pieces are exactly
 * `JSON.stringify(value, null, indent)`.
 */

/** Options of jsonChunks. */
export interface JsonChunkOptions {
  /** Spaces of indentation per level; 0 gives compact JSON. Default 0. */
  indent: number;
  /** Objects and arrays nested less deeply than this are written member by member; deeper values in one piece. Default 3. */
  splitDepth: number;
}

/** Defaults of JsonChunkOptions. */
export const DEFAULT_JSON_CHUNK_OPTIONS: JsonChunkOptions = { indent: 0, splitDepth: 3 };

/** The value JSON.stringify would serialise for `value` under `key` (toJSON applied). */
function jsonValue(holderKey: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: (key: string) => unknown }).toJSON(holderKey);
  }
  return value;
}

/** True when JSON.stringify leaves this member out of an object (or writes null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function* chunksOf(value: unknown, depth: number, options: JsonChunkOptions): Generator<string> {
  if (value === null || typeof value !== 'object' || depth >= options.splitDepth) {
    const text = JSON.stringify(value, null, options.indent) ?? 'null';
    // A JSON text never holds a raw newline inside a string: every newline is indentation, shifted to this depth.
    yield options.indent > 0 && depth > 0 ? text.replaceAll('\n', `\n${' '.repeat(options.indent * depth)}`) : text;
    return;
  }
  const pad = options.indent > 0 ? `\n${' '.repeat(options.indent * (depth + 1))}` : '';
  const close = options.indent > 0 ? `\n${' '.repeat(options.indent * depth)}` : '';
  const colon = options.indent > 0 ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    for (let i = 0; i < value.length; i++) {
      yield `${i === 0 ? '[' : ','}${pad}`;
      const item = jsonValue(String(i), value[i]);
      yield* chunksOf(omitted(item) ? null : item, depth + 1, options);
    }
    yield `${close}]`;
    return;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const member = jsonValue(key, (value as Record<string, unknown>)[key]);
    if (omitted(member)) continue;
    yield `${first ? '{' : ','}${pad}${JSON.stringify(key)}${colon}`;
    first = false;
    yield* chunksOf(member, depth + 1, options);
  }
  yield first ? '{}' : `${close}}`;
}

/** The JSON text of `value` in pieces; their concatenation equals `JSON.stringify(value, null, indent)`. */
export function jsonChunks(value: unknown, options: Partial<JsonChunkOptions> = {}): Iterable<string> {
  const resolved = { ...DEFAULT_JSON_CHUNK_OPTIONS, ...options };
  return { [Symbol.iterator]: () => chunksOf(jsonValue('', value), 0, resolved) };
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * The UTF-8 bytes of the concatenated pieces in one exactly sized array. The pieces are produced twice (once to
 * measure, once to encode) so that no string of the whole text ever exists.
 */
export function encodeChunks(pieces: Iterable<string>, suffix = ''): Uint8Array {
  let length = utf8Length(suffix);
  for (const piece of pieces) length += utf8Length(piece);
  const bytes = new Uint8Array(length);
  const encoder = new TextEncoder();
  let at = 0;
  for (const piece of pieces) at += encoder.encodeInto(piece, bytes.subarray(at)).written;
  at += encoder.encodeInto(suffix, bytes.subarray(at)).written;
  if (at !== length) throw new Error(`JSON encoding wrote ${at} bytes, expected ${length}`);
  return bytes;
}
