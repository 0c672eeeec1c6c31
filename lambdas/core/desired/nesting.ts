/**
 * A cheap pre-parse guard against pathologically deep nesting ("[[[[..." or thousands of indentation levels), which
 * would exhaust the parser's stack or memory. Desired-state documents nest about ten levels; the limits are generous.
 */

/** Widest block indentation accepted, in columns (leading spaces plus compact `- ` / `? ` indicators). */
export const MAX_INDENT_COLUMNS = 256;

/** Deepest flow nesting (`[` and `{`) accepted. */
export const MAX_FLOW_DEPTH = 64;

/** Where the text first nests too deeply, or undefined. Quoted strings and comments are skipped. */
export function findExcessiveNesting(text: string): { offset: number; reason: string } | undefined {
  let depth = 0;
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (c === ' ' || ((c === '-' || c === '?') && (text[i + 1] === ' ' || text[i + 1] === '\n'))) {
        indent++;
        if (indent > MAX_INDENT_COLUMNS) {
          return { offset: i, reason: `indented deeper than ${MAX_INDENT_COLUMNS} columns` };
        }
        continue;
      }
      lineStart = false;
    }
    if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t' || text[i - 1] === '\n')) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (c === '"' || c === "'") {
      // Skip to the closing quote on this line; an unclosed quote is the parser's to report.
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' && c === '"' ? 2 : 1;
      if (text[j] === c) i = j;
    } else if (c === '[' || c === '{') {
      depth++;
      if (depth > MAX_FLOW_DEPTH) return { offset: i, reason: `flow collections nested deeper than ${MAX_FLOW_DEPTH}` };
    } else if ((c === ']' || c === '}') && depth > 0) {
      depth--;
    }
  }
  return undefined;
}
