/**
 * A key written without its colon (`defaultServerType DEV_SERVER`), without the space after it
 * (`defaultServerType:DEV_SERVER`), with the space before it (`prune :true`) or with its colon doubled (`prune::true`) is text to YAML, not a key and its
 * value: YAML then reports "Implicit keys need to be on a single line" there, and a search for a wrongly indented line
 * would "explain" it by moving the lines around it. This names the line and the missing character instead.
 */

import { isContent } from './yaml-lines.ts';

/** The line put right and what was wrong with it. */
export interface MissingColon {
  /** The line with its colon (or the space after it) written. */
  text: string;
  /** 1-based column of the key, or of the colon that lacks its space. */
  column: number;
  message: string;
}

/** Leading spaces, then any `- ` item markers, then a name as this format's keys are written. */
const KEY_LINE = /^( *(?:- +)*)([A-Za-z_][A-Za-z0-9_]*)(.*)$/;

/** The code of a line: its comment (` #...`) and trailing blanks removed. */
function code(line: string): string {
  return line.replace(/\s+#.*$/, '').trimEnd();
}

/** Whether a line is a key with its colon (`name: x`, `name:`), after any item markers. */
function isKeyLine(line: string): boolean {
  return /^ *(?:- +)*[^\s:#'"[\]{},][^:#[\]{},]*:(?: |$)/.test(code(line));
}

/** The column after the indentation and item markers of a line (0-based). */
function keyColumn(line: string): number {
  return /^ *(?:- +)*/.exec(line)?.[0].length ?? 0;
}

/**
 * Whether the nearest content line above or below `at` at the same key column is a key: the line stands among keys of
 * one mapping, so it was meant as one.
 */
function amongKeys(lines: readonly string[], at: number, from: number, to: number): boolean {
  const column = keyColumn(lines[at] ?? '');
  for (const step of [-1, 1]) {
    for (let i = at + step; i >= from && i < to; i += step) {
      const line = lines[i] ?? '';
      if (!isContent(line)) continue;
      const indent = line.length - line.trimStart().length;
      if (keyColumn(line) === column) {
        if (isKeyLine(line)) return true;
        break;
      }
      // At the column of the `-` of an item of keys above it (`- typeName: GROUP`): a key of that item indented too
      // little as well, which the search re-indents once its colon is written.
      if (step < 0 && indent === column && /^ *- /.test(line) && isKeyLine(line)) return true;
      // A line shallower than this one ends its mapping on that side.
      if (indent < column) break;
    }
  }
  return false;
}

/**
 * The line `at` written right, when it is a key missing its colon or the space after it among the keys of a mapping;
 * undefined otherwise. The value is never echoed (it may be a secret pasted where a key belongs).
 */
export function missingColon(lines: readonly string[], at: number, from: number, to: number): MissingColon | undefined {
  const line = lines[at] ?? '';
  if (line.includes('\t') || isKeyLine(line)) return undefined;
  const match = KEY_LINE.exec(code(line));
  if (match === null || !amongKeys(lines, at, from, to)) return undefined;
  const [, lead = '', key = '', rest = ''] = match;
  const tail = line.slice(lead.length + key.length);
  if (rest.startsWith(':') && /^:[^\s:/]/.test(rest)) {
    return {
      text: `${lead}${key}: ${tail.slice(1)}`,
      column: lead.length + key.length + 1,
      message: `YAML syntax error: "${key}:" is not followed by a space, so YAML reads the line as text, not a key and its value; write a space after the colon`,
    };
  }
  // `prune::true`: the colon doubled (a key stuttered while typing), with no space after it.
  if (/^::+[^\s:]/.test(rest)) {
    const colons = /^:+/.exec(rest)?.[0].length ?? 2;
    return {
      text: `${lead}${key}: ${tail.slice(colons)}`,
      column: lead.length + key.length + 2,
      message: `YAML syntax error: "${key}" is followed by ${colons} colons and no space, so YAML reads the line as text, not a key and its value; write "${key}: ..." (one colon, then a space)`,
    };
  }
  // `prune :true`: the space went before the colon, not after it.
  if (/^ +:[^\s:/]/.test(rest)) {
    return {
      text: `${lead}${key}: ${tail.trimStart().slice(1)}`,
      column: lead.length + key.length + 1,
      message: `YAML syntax error: "${key}" has a space before its ":" and none after it, so YAML reads the line as text, not a key and its value; write "${key}: ..."`,
    };
  }
  if (rest === '' || /^ +[^\s:]/.test(rest)) {
    const written = rest === '' ? `${key}:` : `${key}: ...`;
    return {
      text: `${lead}${key}:${tail}`,
      column: lead.length + 1,
      message: `YAML syntax error: "${key}" is not followed by ":", so YAML reads the line as text, not a key and its value (the lines around it are keys); write "${written}"`,
    };
  }
  return undefined;
}
