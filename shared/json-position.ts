/**
 * Where a JSON text stopped being JSON, without quoting any of it: the files it is used for (a secrets file, a saved
 * plan, or a file passed as one by mistake) may hold secrets, and V8's newer messages quote the text around the error.
 */

/**
 * 1-based line and column of a UTF-16 offset, counted as an editor counts them: CR LF, a lone CR and LF each end a line,
 * and a character outside the BMP (two UTF-16 units, an emoji) is one column. A tab is one column, as compilers count.
 */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i += 1) {
    const code = text.charCodeAt(i);
    // A CR followed by LF ends its line at the LF.
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line += 1;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < offset; i += 1) {
    const code = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < offset) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i += 1;
    }
    column += 1;
  }
  return { line, column };
}

/** The offset V8's message gives (`at position 12`), or the end of the text for an unexpected end. */
function reportedOffset(message: string, length: number): number | undefined {
  const match = /at position (\d+)/.exec(message);
  if (match !== null) return Math.min(Number(match[1]), length);
  return message === 'Unexpected end of JSON input' ? length : undefined;
}

/**
 * Whether the JSON goes wrong inside the first `length` characters: a prefix that is only cut short fails at its end
 * (an unexpected end, or an error at position `length`); one holding the error fails before it.
 */
function brokenWithin(text: string, length: number): boolean {
  try {
    JSON.parse(text.slice(0, length));
    return false;
  } catch (error) {
    const offset = reportedOffset(error instanceof Error ? error.message : '', length);
    return offset === undefined || offset < length;
  }
}

/**
 * Characters bisection may re-parse (about 1-2 s): a 6 MB file fits; a 62 MB saved plan took 25 s and gets no
 * position.
 */
const BISECT_BUDGET = 160_000_000;

/**
 * Line and column where `JSON.parse(text)` failed with `error`, or undefined when it did not fail on the text. V8 gives
 * the position in most messages; for the rest ("Unexpected token 'x', "<the text>" is not valid JSON") it is found by
 * bisecting on prefixes of the text (a few more parses, on the failure path only), unless that would re-parse more
 * than `budget` characters: then undefined.
 */
export function jsonErrorPosition(
  text: string,
  error: unknown,
  budget = BISECT_BUDGET,
): { line: number; column: number } | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const offset = reportedOffset(error.message, text.length);
  if (offset !== undefined) return lineAndColumn(text, offset);
  // Each step re-parses up to the whole text: decide before spending any of it, so a large file costs nothing extra.
  if (overBudget(text, budget)) return undefined;
  if (!brokenWithin(text, text.length)) return undefined;
  let low = 0;
  let high = text.length;
  // Invariant: the first `low` characters are a sound prefix, the first `high` hold the error.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (brokenWithin(text, middle)) high = middle;
    else low = middle;
  }
  return lineAndColumn(text, high - 1);
}

/** Whether bisecting `text` would re-parse more than the budget allows (the position is then not looked for). */
function overBudget(text: string, budget = BISECT_BUDGET): boolean {
  return text.length * Math.ceil(Math.log2(text.length + 2)) > budget;
}

/**
 * ` (at line 3, column 14)` for where `JSON.parse(text)` failed with `error`; ` (the file is empty)` when there is
 * nothing but white space (line 1, column 1 would point at nothing); ` (too large to say where: 62 MB)` past the
 * bisection budget; else nothing. Never quotes the text.
 */
export function whereJsonBroke(text: string, error: unknown): string {
  if (error instanceof SyntaxError && text.trim() === '') {
    return text === '' ? ' (the file is empty)' : ' (the file holds only white space)';
  }
  const at = jsonErrorPosition(text, error);
  if (at === undefined) {
    if (!(error instanceof SyntaxError) || !overBudget(text)) return '';
    return ` (too large to say where: ${(text.length / 1e6).toFixed(0)} MB)`;
  }
  // Editors that save "UTF-8 with BOM" (Notepad, PowerShell 5's Out-File) leave U+FEFF first, which JSON.parse refuses
  // and an editor does not show: column 1 alone would point at nothing visible.
  const bom = at.line === 1 && at.column === 1 && text.charCodeAt(0) === 0xfeff;
  return ` (at line ${at.line}, column ${at.column}${bom ? ': a byte order mark; save the file as UTF-8 without one' : ''})`;
}
