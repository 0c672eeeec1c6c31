/**
 * A key written with a value on its line and a block indented under it (`notifications: PAGER` over a list, `spec: x`
 * over the project's keys): a key holds one or the other. YAML complains at the first indented line, and a search for
 * a wrongly indented line would "explain" it by moving those lines out (the list into the alert configs, the spec's
 * keys to the top level). This names the key line and both ways out instead. Only a field the schema makes a mapping
 * or a list everywhere counts (under `mode: apply` deeper lines are their own mistake), and only a block of two or
 * more lines (one line too deep is the indentation search's). The value is never echoed (it may be a secret).
 */
import { holdsBlock } from './field-places.ts';
import { isContent, type LineRewrite, previousContent } from './yaml-lines.ts';

/**
 * The key line without its value (`notifications:`, which lets the block parse as the key's value), the column of
 * the value.
 */
export type ValueAndBlock = LineRewrite;

/** Leading spaces, any `- ` item markers, a key as this format writes them, `: `, then the value (and any comment). */
const KEY_WITH_VALUE = /^( *(?:- +)*)([A-Za-z_][A-Za-z0-9_]*):( +)(.*)$/;

/**
 * Values that open something an indented line may belong to (a block scalar, an open flow collection), name a node
 * (an anchor, a tag, an alias) or are a comment: the lines under such a value are not a second value.
 */
const NOT_PLAIN = /^[|>[{&!*#'"]/;

/** Leading spaces of a line (a tab-indented line is left to the tab check: -1). */
function indentOf(line: string): number {
  const lead = /^[ \t]*/.exec(line)?.[0] ?? '';
  return lead.includes('\t') ? -1 : lead.length;
}

/**
 * The key line `at` with its value removed, when its key holds a mapping or a list in the schema and two or more
 * content lines below it are indented deeper than its key.
 */
function blockUnder(
  lines: readonly string[],
  at: number,
  to: number,
): { rewrite: ValueAndBlock; last: number } | undefined {
  const match = KEY_WITH_VALUE.exec(lines[at] ?? '');
  if (match === null) return undefined;
  const [, lead = '', key = '', gap = '', value = ''] = match;
  if (value.trim() === '' || NOT_PLAIN.test(value)) return undefined;
  const column = lead.length;
  // Only a field that holds a mapping or a list: under a plain field (`mode: apply`, `sizeThresholdMB: 1000`) deeper
  // lines are the lines' own mistake (one indented too little above its siblings reads the same way).
  if (!holdsBlock(key)) return undefined;
  let block = 0;
  let first = at;
  let last = at;
  for (let i = at + 1; i < to; i++) {
    const line = lines[i] ?? '';
    if (!isContent(line)) continue;
    const indent = indentOf(line);
    if (indent < 0) return undefined;
    if (indent <= column) break;
    if (block === 0) first = i;
    block++;
    last = i;
  }
  if (block < 2) return undefined;
  return {
    last,
    rewrite: {
      line: at,
      text: `${lead}${key}:`,
      column: lead.length + key.length + 1 + gap.length + 1,
      message: `YAML syntax error: "${key}" has a value on its line and ${block} lines indented under it (lines ${first + 1}-${last + 1}); a key holds one or the other: remove the value after "${key}:", or move those lines out from under it`,
    },
  };
}

/**
 * The key line at `error` (YAML's first error line, 0-based; YAML may place it on the key line or on the first line
 * under it) or the nearest content line above it, when that line has a plain value and two or more content lines
 * indented deeper than its key below it, `error` among them or the key itself; undefined otherwise.
 */
export function valueAndBlock(
  lines: readonly string[],
  error: number,
  from: number,
  to: number,
): ValueAndBlock | undefined {
  const own = blockUnder(lines, error, to);
  if (own !== undefined) return own.rewrite;
  const at = previousContent(lines, error, from);
  if (at < from) return undefined;
  const above = blockUnder(lines, at, to);
  return above === undefined || error > above.last ? undefined : above.rewrite;
}
