/**
 * A list's first item written without its `- ` (`notifications:` then `  typeName: DATADOG` two columns deeper than
 * the `- ` of the item after it): YAML reads the item's lines as a mapping and complains at the next `- `. Moving
 * lines would "fix" that into another structure (the next item into the first's notifications); the missing dash
 * is named instead, on the line that lacks it.
 */

/** The line with its `- ` written, and what was wrong with it. */
export interface MissingDash {
  /** 0-based line that lacks its dash. */
  line: number;
  /** The line with the dash written (at the items' column). */
  text: string;
  /** 1-based column of the line's first character. */
  column: number;
  message: string;
}

/** Leading spaces of a line. */
function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Whether a line is content (neither blank nor a comment). */
function isContent(line: string): boolean {
  const rest = line.trim();
  return rest !== '' && !rest.startsWith('#');
}

/** Whether a line's content starts a list item. */
function isItem(line: string): boolean {
  return /^-(?:[ \t]|$)/.test(line.trimStart());
}

/** Whether a line is a plain `key:` or `key: value` (no item marker). */
function isKey(line: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*:(?: |$)/.test(line.trimStart());
}

/**
 * The first line under the block that holds item line `at`, when it is a key written two columns deeper than that
 * item's `- ` (where an item's first key stands after its `- `): that line lost its dash. Undefined otherwise.
 */
export function missingDash(lines: readonly string[], at: number, from: number): MissingDash | undefined {
  const item = lines[at] ?? '';
  if (!isItem(item) || item.includes('\t')) return undefined;
  const column = indentOf(item);
  // Up to the key that opens the list (the nearest line shallower than the item), remembering its first child.
  let first: number | undefined;
  for (let i = at - 1; i >= from; i--) {
    const line = lines[i] ?? '';
    if (!isContent(line)) continue;
    if (indentOf(line) < column) {
      if (!/:\s*(?:#.*)?$/.test(line)) return undefined;
      break;
    }
    first = i;
  }
  if (first === undefined || first === at) return undefined;
  const line = lines[first] ?? '';
  if (indentOf(line) !== column + 2 || !isKey(line) || line.includes('\t')) return undefined;
  const key = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(line)?.[1] ?? '';
  return {
    line: first,
    text: `${' '.repeat(column)}- ${line.trimStart()}`,
    column: column + 3,
    message: `YAML syntax error: this line starts the list's first item but has no "-": the item after it (line ${at + 1}) starts with "- " at column ${column + 1}; write "- ${key}: ..." there`,
  };
}
