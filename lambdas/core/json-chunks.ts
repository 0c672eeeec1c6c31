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

/**
 * Pieces are gathered up to about this many characters before one is handed out: a 20,000-change report is then about
 * 1,300 pieces instead of 256,000, each far too small to matter for memory.
 */
export const PIECE_CHARS = 16_384;

/** An open array or object being written, with the position of its next member. */
interface Frame {
  depth: number;
  array?: readonly unknown[];
  object?: Record<string, unknown>;
  keys?: string[];
  next: number;
  first: boolean;
}

/**
 * One generator walks the value with an explicit stack (no generator per nesting level, so a piece is not passed up
 * through every level) and appends to a buffer handed out when it reaches PIECE_CHARS.
 */
function* chunksOf(root: unknown, options: JsonChunkOptions): Generator<string> {
  const { indent, splitDepth } = options;
  const colon = indent > 0 ? ': ' : ':';
  const pads: string[] = [];
  const pad = (depth: number) => {
    let p = pads[depth];
    if (p === undefined) {
      p = indent > 0 ? `\n${' '.repeat(indent * depth)}` : '';
      pads[depth] = p;
    }
    return p;
  };
  const frames: Frame[] = [];
  let buf = '';
  const enter = (value: unknown, depth: number): void => {
    if (value === null || typeof value !== 'object' || depth >= splitDepth) {
      const text = JSON.stringify(value, null, indent) ?? 'null';
      // A JSON text never holds a raw newline inside a string: every newline is indentation, shifted to this depth.
      buf += indent > 0 && depth > 0 ? text.replaceAll('\n', pad(depth)) : text;
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) buf += '[]';
      else frames.push({ depth, array: value, next: 0, first: true });
      return;
    }
    const object = value as Record<string, unknown>;
    frames.push({ depth, object, keys: Object.keys(object), next: 0, first: true });
  };
  enter(root, 0);
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    if (buf.length >= PIECE_CHARS) {
      yield buf;
      buf = '';
    }
    const { depth, array } = frame;
    if (array !== undefined) {
      if (frame.next >= array.length) {
        buf += `${pad(depth)}]`;
        frames.pop();
        continue;
      }
      const i = frame.next++;
      buf += `${i === 0 ? '[' : ','}${pad(depth + 1)}`;
      const item = jsonValue(String(i), array[i]);
      enter(omitted(item) ? null : item, depth + 1);
      continue;
    }
    const object = frame.object as Record<string, unknown>;
    const keys = frame.keys as string[];
    let member: unknown;
    let key: string | undefined;
    while (frame.next < keys.length) {
      const k = keys[frame.next++] as string;
      const m = jsonValue(k, object[k]);
      if (omitted(m)) continue;
      key = k;
      member = m;
      break;
    }
    if (key === undefined) {
      buf += frame.first ? '{}' : `${pad(depth)}}`;
      frames.pop();
      continue;
    }
    buf += `${frame.first ? '{' : ','}${pad(depth + 1)}${JSON.stringify(key)}${colon}`;
    frame.first = false;
    enter(member, depth + 1);
  }
  if (buf !== '') yield buf;
}

/** The JSON text of `value` in pieces; their concatenation equals `JSON.stringify(value, null, indent)`. */
export function jsonChunks(value: unknown, options: Partial<JsonChunkOptions> = {}): Iterable<string> {
  const resolved = { ...DEFAULT_JSON_CHUNK_OPTIONS, ...options };
  return { [Symbol.iterator]: () => chunksOf(jsonValue('', value), resolved) };
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
