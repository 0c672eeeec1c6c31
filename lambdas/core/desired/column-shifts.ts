/**
 * The indentation search (indentation.ts) re-parses a document with some lines rewritten: re-indented, a colon or a
 * space written in, a `- ` added, a value removed. YAML's errors that remain are found in that text; these shifts
 * take their columns back to the file's.
 */

/** Columns of a rewritten line at or past `from` (1-based, in the rewritten text) sit `by` columns further in the file. */
export interface ColumnShift {
  from: number;
  by: number;
}

/** Line number (1-based) to the shifts of its rewrites, in the order they were made. */
export type ColumnShifts = ReadonlyMap<number, readonly ColumnShift[]>;

/**
 * The shift of rewriting `before` as `after`: what follows the changed part (their longest common ending) moves by
 * the difference of their lengths; columns before it stay. Undefined when the lengths are equal.
 */
export function editShift(before: string, after: string): ColumnShift | undefined {
  const by = before.length - after.length;
  if (by === 0) return undefined;
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  const most = Math.min(before.length, after.length) - prefix;
  while (suffix < most && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { from: after.length - suffix + 1, by };
}

/** Records a shift for line `line` (1-based) after those already made on it. */
export function addShift(shifts: Map<number, ColumnShift[]>, line: number, shift: ColumnShift | undefined): void {
  if (shift === undefined) return;
  shifts.set(line, [...(shifts.get(line) ?? []), shift]);
}

/** A column found in the rewritten text on `line`, as a column of the file (the rewrites undone, latest first). */
export function fileColumn(shifts: ColumnShifts | undefined, line: number, column: number): number {
  let result = column;
  for (const shift of [...(shifts?.get(line) ?? [])].reverse()) if (result >= shift.from) result += shift.by;
  return result;
}
