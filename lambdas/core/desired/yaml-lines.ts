/**
 * Line-level helpers of the YAML hint checks (missing-colon.ts, missing-dash.ts, value-and-block.ts) and of the
 * indentation search that tries them (indentation.ts): they look at the file's lines as text, around the line YAML
 * complained about.
 */

/** One line written right by a named check, and what was wrong with it. */
export interface LineRewrite {
  /** 0-based line. */
  line: number;
  /** The line as it should read. */
  text: string;
  /** 1-based column the finding names, in the text as rewritten so far. */
  column: number;
  message: string;
}

/** Whether a line is content (neither blank nor a comment). */
export function isContent(line: string): boolean {
  const rest = line.trim();
  return rest !== '' && !rest.startsWith('#');
}

/** 0-based index of the nearest content line above `at`, or `from - 1` when there is none from `from` on. */
export function previousContent(lines: readonly string[], at: number, from: number): number {
  let i = at - 1;
  while (i >= from && !isContent(lines[i] ?? '')) i--;
  return i;
}
