/**
 * Faults nobody sees in an editor that make YAML's own errors point at the wrong place.
 */
import type { ValidationIssue } from './types.ts';

/**
 * The first of two invisible faults that make YAML's own errors point at the wrong place, as one issue: a lone CR
 * line end (YAML 1.2 counts it as a line break, the parser does not: a file with classic Mac OS line ends read as one
 * line, with one error per line of the file, all "on line 1"), and a byte order mark after the start (left where files
 * were joined: `\uFEFFapiVersion` is another key, so the document it starts was "missing apiVersion").
 */
export function invisibleBreakage(file: string, text: string): ValidationIssue | undefined {
  const loneCr = text.includes('\r') ? /\r(?!\n)/.exec(text)?.index : undefined;
  // The decoder drops a BOM at the start of the file, so any left is inside it.
  const bom = text.indexOf('\uFEFF');
  const offsets = [loneCr, bom].filter((at): at is number => at !== undefined && at >= 0);
  if (offsets.length === 0) return undefined;
  const offset = Math.min(...offsets);
  const before = text.slice(0, offset);
  const at = { file, line: before.split('\n').length, column: offset - before.lastIndexOf('\n'), path: '' };
  if (offset === loneCr) {
    const message =
      'a line ends with a lone carriage return (CR, as classic Mac OS wrote line ends): save the file with LF (or CRLF) line ends';
    return { ...at, message, found: 'CR' };
  }
  const message =
    'an invisible byte order mark (U+FEFF) inside the file, as joining files (cat a.yaml b.yaml) leaves: delete it (only the start of a file may hold one)';
  return { ...at, message, found: 'U+FEFF' };
}
