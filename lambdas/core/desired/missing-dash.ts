/**
 * A list's first item written without its `- ` (`notifications:` then `  typeName: DATADOG` two columns deeper than
 * the `- ` of the item after it): YAML reads the item's lines as a mapping and complains at the next `- `. Moving
 * lines would "fix" that into another structure (the next item into the first's notifications); the missing dash
 * is named instead, on the line that lacks it.
 */
import { type Document, isMap, isScalar, type LineCounter, visit } from 'yaml';
import { holdsList } from './field-places.ts';
import { positionAt } from './locate.ts';
import type { SeparatorFindings } from './missing-separator.ts';
import type { ValidationIssue } from './types.ts';
import { isContent, type LineRewrite, previousContent } from './yaml-lines.ts';

/** The line that lacks its `- ` with the dash written (at the items' column); the column of its first character. */
export type MissingDash = LineRewrite;

/** Leading spaces of a line. */
function indentOf(line: string): number {
  return line.length - line.trimStart().length;
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
 * The first line under the block that holds item line `error`, when it is a key written two columns deeper than that
 * item's `- ` (where an item's first key stands after its `- `): that line lost its dash. Undefined otherwise. YAML
 * places its error on a blank or comment line before the item when there is one: the item is the next content line.
 */
export function missingDash(
  lines: readonly string[],
  error: number,
  from: number,
  to: number,
): MissingDash | undefined {
  let at = error;
  while (at < to && !isContent(lines[at] ?? '')) at++;
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

/**
 * A list item written without its `- ` with its key at the column of the `-` of the item after it (`    key: a`, then
 * its keys at `      eventTypeName: ...`, then `    - key: b`): YAML complains at the key line (its value is followed
 * by deeper lines), and re-indenting it to the column of those lines parses, as a mapping, not the item, only for the
 * next `- ` to be an error again. Undefined unless line `at` is a plain key opening a block (below the key of the list,
 * or an item of it at its column) whose next content line is a key two columns deeper (where an item's keys stand after its `- `),
 * followed, past lines deeper than it only, by an item at its column that starts with the same key, or, when it is the
 * list's only item, by the end of the block of a key the schema makes a list everywhere (`alertConfigs`): re-indenting
 * it would make that list a mapping.
 */
export function dashlessItem(lines: readonly string[], at: number, from: number, to: number): MissingDash | undefined {
  const line = lines[at] ?? '';
  if (line.includes('\t') || !isKey(line)) return undefined;
  const column = indentOf(line);
  // The key opening the list, when the line right under it is this one (no item of the list before it).
  let opener: string | undefined;
  for (let i = at - 1; i >= from; i--) {
    const above = lines[i] ?? '';
    if (!isContent(above) || indentOf(above) > column) continue;
    // The key opening the list: shallower, or at the same column when its items are written at the key's column.
    const opensList = /:\s*(?:#.*)?$/.test(above);
    if (!opensList && !(indentOf(above) === column && isItem(above))) return undefined;
    if (opensList && indentOf(above) < column) opener = /^\s*(?:-\s+)*([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(above)?.[1];
    break;
  }
  const key = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(line)?.[1] ?? '';
  const fix = (why: string): MissingDash => ({
    line: at,
    text: `${' '.repeat(column)}- ${line.trimStart()}`,
    column: column + 1,
    message: `YAML syntax error: this line starts a list item but has no "-": its keys below it stand 2 columns right of it, as after a "- ", ${why}; write "- ${key}: ..." with the "-" at column ${column + 1}`,
  });
  let deeper = 0;
  for (let i = at + 1; i < to; i++) {
    const next = lines[i] ?? '';
    if (!isContent(next)) continue;
    if (next.includes('\t')) return undefined;
    const indent = indentOf(next);
    if (deeper === 0 && (indent !== column + 2 || !isKey(next))) return undefined;
    if (indent > column) {
      deeper++;
      continue;
    }
    // The list ends after this one item: only the schema can say the block was meant as a list (`alertConfigs`).
    if (indent < column) break;
    if (!isItem(next)) return undefined;
    // Items of one list start with the same key: a key indented too little under an item (its second key, say) is not
    // taken for an item.
    if (/^\s*-\s+([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(next)?.[1] !== key) return undefined;
    return fix(`and the item after it (line ${i + 1}) starts with "- " at column ${column + 1}`);
  }
  if (deeper === 0 || opener === undefined || !holdsList(opener)) return undefined;
  return fix(`and "${opener}" above it holds a list`);
}

/** Whether a line's content is plain text: no key (`name:`), no item, comment, quote, flow or block marker. */
function isPlainText(content: string): boolean {
  return /^[A-Za-z0-9_]/.test(content) && !/:(?:\s|$)/.test(content) && !content.includes(' #');
}

/**
 * A later item of a list of plain values written without its `- ` (`- GROUP_OWNER` then `GROUP_MEMBER` at the column
 * of the `-`): YAML complains about that line, and re-indenting it under the item above would "fix" it into one value
 * (`GROUP_OWNER GROUP_MEMBER`). The missing dash is named instead. Undefined unless line `at` is plain text at the
 * column of the `- ` of the nearest line above, an item of plain text.
 */
export function missingValueDash(lines: readonly string[], at: number, from: number): MissingDash | undefined {
  const line = lines[at] ?? '';
  const column = indentOf(line);
  if (line.includes('\t') || !isPlainText(line.trimStart())) return undefined;
  const above = previousContent(lines, at, from);
  const item = lines[above] ?? '';
  if (above < from || indentOf(item) !== column || !isItem(item) || item.includes('\t')) return undefined;
  if (!isPlainText(item.trimStart().slice(1).trimStart())) return undefined;
  return {
    line: at,
    text: `${' '.repeat(column)}- ${line.trimStart()}`,
    column: column + 1,
    message: `YAML syntax error: this line stands at the column of the "-" of the list item above it (line ${above + 1}) but has no "-"; write "- " before it to make it the next item`,
  };
}

/**
 * A later item of a list written without its `- ` joins the item above: YAML reports each of its keys as a duplicate
 * (`key`, `eventTypeName`, `notifications`), which says neither why nor how to fix it. A list item's mapping whose
 * keys start again at its first key (`key` for an alert config, `typeName` for a notification) is reported once
 * there, and the duplicate-key errors after it in that mapping are explained by it.
 */
export function findMissingItemDashes(file: string, doc: Document.Parsed, lineCounter: LineCounter): SeparatorFindings {
  const issues: ValidationIssue[] = [];
  const explained = new Set<number>();
  visit(doc, {
    Seq(_key, seq) {
      for (const item of seq.items) {
        if (!isMap(item) || item.flow) continue;
        const keys = item.items.flatMap((pair) =>
          isScalar(pair.key) && typeof pair.key.value === 'string' && pair.key.range
            ? [{ name: pair.key.value, offset: pair.key.range[0] }]
            : [],
        );
        const first = keys[0];
        if (first === undefined) continue;
        // Names written before the current item started; a key of a later item repeating one is its duplicate.
        const before = new Set<string>();
        const current = new Set<string>();
        for (const key of keys) {
          if (key.name === first.name && key.offset !== first.offset) {
            const at = positionAt(lineCounter, key.offset);
            const above = positionAt(lineCounter, first.offset);
            issues.push({
              file,
              ...at,
              path: '',
              message: `"${first.name}" starts the list item above (line ${above.line}) and appears again here: this seems to be the next item without its "-"; write "- ${first.name}: ..." with the "-" at column ${Math.max(1, at.column - 2)}`,
              hint: `write "- " before "${first.name}"`,
            });
            for (const name of current) before.add(name);
            current.clear();
          }
          if (before.has(key.name) || (key.name === first.name && key.offset !== first.offset))
            explained.add(key.offset);
          current.add(key.name);
        }
      }
      return undefined;
    },
  });
  return { issues, explained };
}
