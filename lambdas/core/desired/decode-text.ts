/**
 * Bytes of a desired-state file to text: refuses UTF-16/32, binary content and invalid UTF-8 with an issue (the last
 * at the first bad byte, by line and column), and drops a leading BOM.
 */
import type { ValidationIssue } from './types.ts';

/** Bytes to text: refuses binary content and invalid UTF-8 (a leading BOM is dropped). */
export function decodeText(file: string, bytes: Uint8Array): { text: string } | { issue: ValidationIssue } {
  const at = { file, line: 1, column: 1, path: '' };
  const wide = wideEncoding(bytes);
  if (wide !== undefined) {
    // Windows PowerShell's `>` and Out-File write UTF-16 with a BOM: say so, rather than "binary" or "not UTF-8".
    const message = `file is ${wide.name} text (it starts with the byte order mark ${wide.bom}); save it as UTF-8`;
    return { issue: { ...at, message, found: wide.name } };
  }
  if (bytes.includes(0)) {
    return {
      issue: { ...at, message: 'binary file (it contains NUL bytes); expected UTF-8 YAML text', found: 'binary' },
    };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { issue: invalidUtf8Issue(file, bytes) };
  }
}

/** Where the first byte that is not UTF-8 is (a Latin-1 `é` in an address, say), by line and column, and its value. */
function invalidUtf8Issue(file: string, bytes: Uint8Array): ValidationIssue {
  const offset = firstInvalidUtf8(bytes);
  // The valid text before it gives the position, counted as every other column is (UTF-16 units of the line).
  const before = new TextDecoder('utf-8').decode(bytes.subarray(0, offset)).replace(/^\uFEFF/, '');
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.slice(0, lineStart).split('\n').length;
  const column = before.length - lineStart + 1;
  const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
  const message = `file is not valid UTF-8: byte 0x${byte} here is not part of a UTF-8 character (text saved as Latin-1 or Windows-1252?); save it as UTF-8 text`;
  return { file, line, column, path: '', message, found: 'invalid UTF-8' };
}

/** Offset of the first byte of `bytes` that does not start a well-formed UTF-8 sequence (a stray or cut-short one). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead <= 0xdf
          ? 2
          : lead >= 0xe0 && lead <= 0xef
            ? 3
            : lead >= 0xf0 && lead <= 0xf4
              ? 4
              : 0;
    if (length === 0) return i;
    // The second byte's range excludes overlong forms and surrogates (E0, ED, F0, F4), as the Unicode table 3-7 does.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || next < (k === 1 ? low : 0x80) || next > (k === 1 ? high : 0xbf)) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** The UTF-16 or UTF-32 encoding whose byte order mark `bytes` starts with (UTF-32 LE first: it begins as UTF-16 LE's). */
function wideEncoding(bytes: Uint8Array): { name: string; bom: string } | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { name: 'UTF-32', bom: 'FF FE 00 00' };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { name: 'UTF-32', bom: '00 00 FE FF' };
  if (a === 0xff && b === 0xfe) return { name: 'UTF-16', bom: 'FF FE' };
  if (a === 0xfe && b === 0xff) return { name: 'UTF-16', bom: 'FE FF' };
  return undefined;
}
