/**
 * Where a JSON text stopped being JSON, without quoting any of it: the files it is used for (a secrets file, a saved
 * plan, or a file passed as one by mistake) may hold secrets, and V8's newer messages quote the text around the error.
 */

/** 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
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
 * Line and column where `JSON.parse(text)` failed with `error`, or undefined when it did not fail on the text. V8 gives
 * the position in most messages; for the rest ("Unexpected token 'x', "<the text>" is not valid JSON") it is found by
 * bisecting on prefixes of the text (a few more parses, on the failure path only).
 */
export function jsonErrorPosition(text: string, error: unknown): { line: number; column: number } | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const offset = reportedOffset(error.message, text.length);
  if (offset !== undefined) return lineAndColumn(text, offset);
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

/** ` (at line 3, column 14)` for where `JSON.parse(text)` failed with `error`, else nothing. Never quotes the text. */
export function whereJsonBroke(text: string, error: unknown): string {
  const at = jsonErrorPosition(text, error);
  return at === undefined ? '' : ` (at line ${at.line}, column ${at.column})`;
}
