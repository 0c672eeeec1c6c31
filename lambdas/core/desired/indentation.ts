/**
 * One mis-indented line (or one indented with a tab) makes YAML report a cascade: "All mapping items must start at the
 * same column" on every later sibling, "Implicit keys need to be on a single line" on the lines below it, each at
 * column 1. This finds the line that is wrong and says what is wrong with it, once.
 *
 * How: the document is re-parsed with one candidate line re-indented (to an indentation its neighbours use); the
 * re-indentation that removes the most errors names the wrong line. Its errors are then replaced by one issue, and the
 * search goes on for what is left, so every genuinely separate error is still reported. Runs only on a document that
 * failed to parse, so the happy path never pays for it.
 */
import type { Document, LineCounter, YAMLError } from 'yaml';
import { addShift, type ColumnShift, type ColumnShifts, editShift, fileColumn } from './column-shifts.ts';
import { parseTrees } from './lazy-document.ts';
import { missingColon } from './missing-colon.ts';
import { dashlessItem, missingDash, missingValueDash } from './missing-dash.ts';
import { valueAndBlock } from './value-and-block.ts';
import { type LineRewrite, previousContent } from './yaml-lines.ts';

/** One line found wrongly indented, and what the document needs there. */
export interface IndentationFinding {
  /** 1-based line and column (the first tab, or the first character after the indentation). */
  line: number;
  column: number;
  message: string;
}

/** The wrong lines of a document, and the YAML errors left once they are re-indented. */
export interface IndentationFindings {
  findings: IndentationFinding[];
  /** The document re-parsed with every found line re-indented (its errors are the genuinely separate ones). */
  doc: Document.Parsed;
  /** The text `doc` was parsed from: the file with the other documents blanked and the found lines re-indented. */
  text: string;
  /** Lines of `text` (the same line numbers as the file's). */
  lineCounter: LineCounter;
  /** Line number (1-based) to how its rewrites moved its columns (`fileColumn` takes a column of `text` to the file's). */
  shifts: ColumnShifts;
}

/** Most lines re-indented per document: past it, the remaining errors are reported as YAML gives them. */
const MAX_FINDINGS = 10;
/**
 * Largest document searched (characters). A project file of 25 alert configs is about 6 KiB; past this size YAML's
 * errors are reported as they are.
 */
const MAX_DOCUMENT_CHARS = 64 * 1024;
/**
 * Characters the search may re-parse per document, all candidates together (re-parsing runs at well under 1 MB a
 * second here): a broken file costs at most some tenths of a second, whatever its size and however many lines are
 * wrong. When it runs out, the lines found so far are reported and the rest as YAML gives them (measured: a 56 KB
 * file with 10 wrong lines took 4.7-8 s without a budget, 1.7 s with 1 MB).
 */
const PARSE_BUDGET_CHARS = 400_000;
/**
 * A block scalar (`key: |`, `- >-`) or a flow collection left open on its line (`tags: [a,`): inside them indentation
 * means something else (text, or nothing), and re-indenting a line there can "fix" a parse with a wrong message
 * (a key moved into a description). An error inside one (or on its line) ends the search: it and what follows are
 * left to YAML's own errors.
 */
const BLOCK_SCALAR = /(?:^|[:\s-])[|>][-+0-9]*\s*$/;
const OPEN_FLOW = /(?:^|[:\s-])[[{][^\]}]*$/;
const INDENTATION_FREE = new RegExp(`${BLOCK_SCALAR.source}|${OPEN_FLOW.source}`);
/** Lines above and below a candidate whose indentations are tried for it. */
const NEIGHBOURHOOD = 40;

/** Errors a re-indentation may explain (a duplicate key never comes from indentation). */
const explainable = (error: YAMLError) => error.code !== 'DUPLICATE_KEY';

interface Line {
  /** Leading whitespace (spaces and tabs). */
  lead: string;
  /** Column of the first character after the leading whitespace and any `- ` sequence markers (0-based). */
  keyColumn: number;
  content: boolean;
}

function lineOf(text: string): Line {
  const lead = /^[ \t]*/.exec(text)?.[0] ?? '';
  const dashes = /^(?:-[ \t]+)*/.exec(text.slice(lead.length))?.[0] ?? '';
  const rest = text.slice(lead.length);
  return { lead, keyColumn: lead.length + dashes.length, content: rest.trim() !== '' && !rest.startsWith('#') };
}

/** Lines `from` to `to` (0-based, `to` excluded) with the rest of the file blanked: same line numbers, one document. */
function regionText(lines: readonly string[], from: number, to: number): string {
  return lines.map((l, i) => (i >= from && i < to ? l : '')).join('\n');
}

/** What is left of the document's PARSE_BUDGET_CHARS. */
interface Budget {
  chars: number;
}

/**
 * The region's document (blanking leaves one, plus an empty one when the region ends with the next `---`); undefined
 * once the budget cannot pay for the parse.
 */
function parseRegion(lines: readonly string[], from: number, to: number, budget: Budget): Parsed | undefined {
  const text = regionText(lines, from, to);
  if (text.length > budget.chars) return undefined;
  budget.chars -= text.length;
  const { docs, lineCounter } = parseTrees(text);
  return docs[0] === undefined ? undefined : { doc: docs[0], lineCounter };
}

interface Parsed {
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

/** 0-based line of an offset. */
function lineIndex(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** One re-indentation tried: the line, its new indentation and its rank (lower is better). */
interface Candidate {
  line: number;
  indent: number;
  rank: number[];
}

/** Whether rank `a` sorts before rank `b` (compared item by item). */
function before(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/** Whether a line opens a block (`key:` or a bare `-`): the lines below it belong deeper. */
function opensBlock(text: string): boolean {
  const code = text.replace(/\s+#.*$/, '').trimEnd();
  return code.endsWith(':') || /^[\s-]*-$/.test(code);
}

/**
 * How well an indentation follows the line above (0 best): deeper after a line that opens a block (`key:`), level
 * with it otherwise. Among re-indentations that parse equally well, it picks what the writer most likely meant (a
 * tab after `name: x` means the column of `name`, not column 1).
 */
function followsAbove(lines: readonly string[], at: number, indent: number, from: number): number {
  for (let i = at - 1; i >= from; i--) {
    const text = lines[i] ?? '';
    const above = lineOf(text);
    // A block scalar's text says nothing of the structure: the line above is its header.
    if (!above.content || insideFreeConstruct(lines, from, i)) continue;
    if (opensBlock(text)) return indent > above.keyColumn ? 0 : 2;
    return indent === above.keyColumn ? 0 : indent < above.keyColumn ? 1 : 2;
  }
  return indent === 0 ? 0 : 2;
}

/**
 * Whether line `at` is a block scalar's or open flow collection's line, or inside one: below such a line, every content
 * line up to `at` is indented deeper than it.
 */
function insideFreeConstruct(lines: readonly string[], from: number, at: number): boolean {
  let shallowestBelow = Number.POSITIVE_INFINITY;
  // Brackets closed on the lines between a candidate opener and `at` (a flow collection may continue at any indent).
  let closedBelow = 0;
  for (let i = at; i >= from; i--) {
    const text = lines[i] ?? '';
    const line = lineOf(text);
    if (!line.content) continue;
    const code = text.replace(/\s+#.*$/, '');
    if (i === at && INDENTATION_FREE.test(code)) return true;
    if (i < at && BLOCK_SCALAR.test(code) && shallowestBelow > line.lead.length) return true;
    if (i < at && OPEN_FLOW.test(code) && bracketDepth(code) > closedBelow) return true;
    if (i < at) closedBelow -= Math.min(0, bracketDepth(code));
    shallowestBelow = Math.min(shallowestBelow, line.lead.length);
    // A line at the left edge closes every block above it.
    if (line.lead.length === 0 && i < at) return false;
  }
  return false;
}

/** Opening minus closing flow brackets of a line (quoted text is not told apart: a guess that errs on the safe side). */
function bracketDepth(code: string): number {
  let depth = 0;
  for (const c of code) {
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  return depth;
}

function errorCount(parsed: Parsed | undefined): number {
  return parsed === undefined ? Number.POSITIVE_INFINITY : parsed.doc.errors.length;
}

/**
 * 0-based line of the first error a re-indentation may explain, or `none` when there is none. YAML's error count is
 * no measure of progress on its own: one wrong line can hide the wrong lines after it (the parser gives up on the
 * structure), so putting it right can raise the count; the first error moving down the file is progress.
 */
function firstErrorLine(parsed: Parsed | undefined, none: number): number {
  if (parsed === undefined) return -1;
  const offsets = parsed.doc.errors.filter(explainable).map((e) => e.pos[0]);
  return offsets.length === 0 ? none : parsed.lineCounter.linePos(Math.min(...offsets)).line - 1;
}

/**
 * Finds the wrongly indented lines of one document of a file that failed to parse; undefined when re-indenting no line
 * removes an error (the errors are then not about indentation).
 *
 * @param text the whole file
 * @param start offset where the document starts (its `---`, or 0)
 * @param end offset where the next document starts, or the text's length
 */
export function findIndentation(text: string, start: number, end: number): IndentationFindings | undefined {
  if (end - start > MAX_DOCUMENT_CHARS) return undefined;
  const lines = text.split('\n');
  const from = lineIndex(text, start);
  const to = end >= text.length ? lines.length : lineIndex(text, end);
  const budget: Budget = { chars: PARSE_BUDGET_CHARS };
  let parsed = parseRegion(lines, from, to, budget);
  // The document as found, for the final answer: a search cut short by the budget keeps the lines found so far.
  let found = parsed;
  const findings: IndentationFinding[] = [];
  const shifts = new Map<number, ColumnShift[]>();
  const tabbed = parsed === undefined ? undefined : replaceTabs(lines, from, to, parsed, budget);
  if (tabbed !== undefined) {
    for (const [line, text] of tabbed.lines) lines[line] = text;
    for (const [line, shift] of tabbed.shifts) addShift(shifts, line, { from: 1, by: shift });
    findings.push(tabbed.finding);
    parsed = tabbed.parsed;
    found = tabbed.parsed;
  }
  // A finding's column is in the text as rewritten so far: the file's column is reported (a line re-indented, then found
  // missing its colon, is named where the key stands in the file).
  const report = (finding: IndentationFinding) =>
    findings.push({ ...finding, column: Math.max(1, fileColumn(shifts, finding.line, finding.column)) });
  while (parsed !== undefined && findings.length < MAX_FINDINGS) {
    const errorLine = firstErrorLine(parsed, to);
    if (errorLine >= to || insideFreeConstruct(lines, from, errorLine)) break;
    // Mistakes that are no indentation error, though moving the lines around them may make YAML parse, each named at
    // its line when writing that line right is progress, in this order:
    // - a key without its colon (YAML places the error on the line after it when a comment ends the key's line:
    //   `enforce true  # keep`);
    // - a list's first item without its dash, which moving the next item would "fix" into another list, or a later
    //   plain value without it, which moving it under the item above would join to that item's value;
    // - a key with a value on its line and a block under it, which moving the block out would "fix".
    const rewrites: (() => LineRewrite | undefined)[] = [
      () => {
        const line = [errorLine, previousContent(lines, errorLine, from)].find(
          (i) => i >= from && missingColon(lines, i, from, to) !== undefined,
        );
        const colon = line === undefined ? undefined : missingColon(lines, line, from, to);
        return line === undefined || colon === undefined ? undefined : { line, ...colon };
      },
      () =>
        missingDash(lines, errorLine, from, to) ??
        missingValueDash(lines, errorLine, from) ??
        dashlessItem(lines, errorLine, from, to),
      () => valueAndBlock(lines, errorLine, from, to),
    ];
    let rewritten = false;
    for (const next of rewrites) {
      const rewrite = next();
      if (rewrite === undefined) continue;
      const patched = parseRegion(
        lines.map((l, i) => (i === rewrite.line ? rewrite.text : l)),
        from,
        to,
        budget,
      );
      if (patched === undefined || !progressed(patched, parsed, errorLine, to)) continue;
      report({ line: rewrite.line + 1, column: rewrite.column, message: rewrite.message });
      addShift(shifts, rewrite.line + 1, editShift(lines[rewrite.line] ?? '', rewrite.text));
      lines[rewrite.line] = rewrite.text;
      parsed = patched;
      found = patched;
      rewritten = true;
      break;
    }
    if (rewritten) continue;
    const best = bestReindentation(lines, from, to, errorLine, budget);
    const single = best === undefined ? undefined : oneLineFix(lines, from, to, best, errorLine, parsed, budget);
    // A list item YAML complains about may be indented unlike the items before it with its own lines (pasted, or one
    // level too deep after a nested `notifications` list): no one line explains that, though one may parse, wrongly
    // (the item moved into the nested list, a notification moved to its key's column). Moving the item with its lines
    // wins when it leaves fewer errors, or as many while the one line would move a line YAML had no complaint about
    // out from under the key that opens its block.
    const block =
      single === undefined || isItem(lines[errorLine] ?? '')
        ? misalignedItem(lines, from, to, errorLine, parsed, budget)
        : undefined;
    const blockWins =
      block !== undefined &&
      (single === undefined ||
        errorCount(block.parsed) < errorCount(single.parsed) ||
        (errorCount(block.parsed) === errorCount(single.parsed) && unsettles(lines, single, errorLine, from)));
    if (blockWins) {
      report(block.finding);
      for (const [line, text] of block.lines) {
        addShift(shifts, line + 1, { from: 1, by: lineOf(lines[line] ?? '').lead.length - lineOf(text).lead.length });
        lines[line] = text;
      }
      parsed = block.parsed;
      found = block.parsed;
      continue;
    }
    if (single === undefined) break;
    const { lead } = lineOf(lines[single.line] ?? '');
    lines[single.line] = single.text;
    report(describe(lines, single.line, lead, single.indent, from, to));
    addShift(shifts, single.line + 1, { from: 1, by: lead.length - single.indent });
    parsed = single.parsed;
    found = single.parsed;
  }
  if (found === undefined || findings.length === 0) return undefined;
  return { findings, ...found, text: regionText(lines, from, to), shifts };
}

/** Whether a patched document is progress over `parsed`: fewer errors, or its first error past `line`. */
function progressed(patched: Parsed, parsed: Parsed, line: number, to: number): boolean {
  return errorCount(patched) < errorCount(parsed) || firstErrorLine(patched, to) > line;
}

/**
 * The document with `best` applied, when that is progress: fewer errors in the whole document (it was ranked on the
 * lines near the error only), or its first error now past the line (the count may rise when the line hid wrong lines
 * below it). Undefined otherwise, or once the budget runs out.
 */
function oneLineFix(
  lines: readonly string[],
  from: number,
  to: number,
  best: { line: number; indent: number },
  errorLine: number,
  parsed: Parsed,
  budget: Budget,
): { line: number; indent: number; text: string; parsed: Parsed } | undefined {
  const original = lines[best.line] ?? '';
  const text = ' '.repeat(best.indent) + original.slice(lineOf(original).lead.length);
  const patched = lines.map((l, i) => (i === best.line ? text : l));
  const whole = parseRegion(patched, from, to, budget);
  if (whole === undefined) return undefined;
  const progress = errorCount(whole) < errorCount(parsed) || firstErrorLine(whole, to) > Math.max(errorLine, best.line);
  return progress ? { ...best, text, parsed: whole } : undefined;
}

/**
 * Whether a re-indentation moves a line other than the one YAML complains about from a column that follows the line
 * above (deeper than the key opening its block, or level with its sibling) to one that does not.
 */
function unsettles(
  lines: readonly string[],
  best: { line: number; indent: number },
  errorLine: number,
  from: number,
): boolean {
  if (best.line === errorLine) return false;
  const { lead } = lineOf(lines[best.line] ?? '');
  if (lead.includes('\t')) return false;
  return (
    followsAbove(lines, best.line, lead.length, from) === 0 && followsAbove(lines, best.line, best.indent, from) > 0
  );
}

/** The first key of a list item's mapping (`- key: a` gives `key`, `- { typeName: X }` gives `typeName`). */
function itemKey(text: string): string | undefined {
  return /^[\s-]*\{?\s*([^\s:{}[\],#]+)\s*:/.exec(text)?.[1];
}

/** Whether a line's content starts a list item (`- `, or a bare `-`). */
function isItem(text: string): boolean {
  return /^-(?:[ \t]|$)/.test(text.trimStart());
}

/**
 * A list item indented unlike the items before it in the same list (`  - key: a` then `    - key: b`, as a config
 * pasted from an example with other indentation gives): YAML reports "A block sequence may not be used as an implicit
 * map key" and a cascade, and no single line re-indented explains it, since the item's own lines moved with it. The
 * item at or just above `errorLine`, its lines and the items after it at its column are moved together to the column
 * of the item before them; kept when that removes errors, as for one line.
 */
function misalignedItem(
  lines: readonly string[],
  from: number,
  to: number,
  errorLine: number,
  parsed: Parsed,
  budget: Budget,
): { lines: Map<number, string>; finding: IndentationFinding; parsed: Parsed } | undefined {
  const content = (i: number) => lineOf(lines[i] ?? '').content;
  let previous = errorLine - 1;
  while (previous >= from && !content(previous)) previous--;
  for (const start of [errorLine, previous]) {
    if (start < from || !content(start) || !isItem(lines[start] ?? '')) continue;
    const lead = lineOf(lines[start] ?? '').lead;
    if (lead.includes('\t')) continue;
    // The item before it in the same list: an item line above at another column, before any line that is shallower
    // and no item (the list's parent, or a sibling of it). Items of one list look alike: among several (a nested
    // `notifications` item, then the alert config holding it), the nearest with the same first key, else the nearest.
    const key = itemKey(lines[start] ?? '');
    const items: number[] = [];
    for (let i = start - 1; i >= from; i--) {
      const l = lineOf(lines[i] ?? '');
      if (!l.content || insideFreeConstruct(lines, from, i)) continue;
      if (isItem(lines[i] ?? '') && l.lead.length !== lead.length && !l.lead.includes('\t')) items.push(i);
      else if (l.lead.length < lead.length) break;
    }
    const sibling = items.find((i) => key !== undefined && itemKey(lines[i] ?? '') === key) ?? items[0];
    if (sibling === undefined) continue;
    const target = lineOf(lines[sibling] ?? '').lead.length;
    const delta = target - lead.length;
    const moved = new Map<number, string>();
    let last = start;
    for (let i = start; i < to; i++) {
      const text = lines[i] ?? '';
      const l = lineOf(text);
      if (!l.content) continue;
      const inBlock = i === start || l.lead.length > lead.length || (l.lead.length === lead.length && isItem(text));
      // An item already at the list's column (after an item indented too little) is in place: the block ends there.
      const inPlace = i !== start && delta > 0 && l.lead.length === target && isItem(text);
      if (!inBlock || inPlace || l.lead.includes('\t')) break;
      moved.set(i, ' '.repeat(l.lead.length + delta) + text.slice(l.lead.length));
      last = i;
    }
    const patched = lines.map((text, i) => moved.get(i) ?? text);
    const whole = parseRegion(patched, from, to, budget);
    if (whole === undefined) return undefined;
    const progress = errorCount(whole) < errorCount(parsed) || firstErrorLine(whole, to) > last;
    if (!progress) continue;
    const spaces = (n: number) => `${n} ${n === 1 ? 'space' : 'spaces'}`;
    const span = last === start ? `line ${start + 1}` : `lines ${start + 1}-${last + 1}`;
    const message = `YAML indentation error: this list item is indented ${spaces(lead.length)}, the item before it (line ${sibling + 1}) ${target}; items of one list start at the same column: indent ${span} ${spaces(Math.abs(delta))} ${delta < 0 ? 'less' : 'more'}`;
    return { lines: moved, finding: { line: start + 1, column: lead.length + 1, message }, parsed: whole };
  }
  return undefined;
}

/** Tab-indented lines from which one summary is reported instead of an issue per line. */
const TAB_SUMMARY_LINES = 4;

/**
 * A document indented with tabs: every tab of every line's indentation replaced with 2 spaces (or, failing that, 4),
 * as an editor's "convert indentation to spaces" does, reported as one issue listing the lines instead of one per
 * line (60 tab-indented lines would otherwise make 10 findings and then YAML's own errors). Undefined when fewer than
 * TAB_SUMMARY_LINES lines are tab-indented or when neither width makes progress (the line-by-line search then runs).
 * A tab after spaces inside a block scalar or open flow collection is text, not indentation, and is left alone.
 */
function replaceTabs(
  lines: readonly string[],
  from: number,
  to: number,
  parsed: Parsed,
  budget: Budget,
):
  | { lines: Map<number, string>; shifts: Map<number, number>; finding: IndentationFinding; parsed: Parsed }
  | undefined {
  const tabbed: number[] = [];
  for (let i = from; i < to; i++) {
    const { lead, content } = lineOf(lines[i] ?? '');
    if (!content || !lead.includes('\t')) continue;
    if (!lead.startsWith('\t') && insideFreeConstruct(lines, from, i)) continue;
    tabbed.push(i);
  }
  if (tabbed.length < TAB_SUMMARY_LINES) return undefined;
  const first = tabbed[0] as number;
  let best: { width: number; patched: string[]; parsed: Parsed } | undefined;
  for (const width of [2, 4]) {
    const patched = [...lines];
    for (const i of tabbed) {
      const original = lines[i] ?? '';
      const { lead } = lineOf(original);
      patched[i] = lead.replaceAll('\t', ' '.repeat(width)) + original.slice(lead.length);
    }
    const result = parseRegion(patched, from, to, budget);
    if (result === undefined) break;
    const progress = errorCount(result) < errorCount(parsed) || firstErrorLine(result, to) > firstErrorLine(parsed, to);
    if (progress && (best === undefined || errorCount(result) < errorCount(best.parsed))) {
      best = { width, patched, parsed: result };
    }
    if (errorCount(result) === 0) break;
  }
  if (best === undefined) return undefined;
  const changed = new Map<number, string>();
  const shifts = new Map<number, number>();
  for (const i of tabbed) {
    changed.set(i, best.patched[i] ?? '');
    shifts.set(i + 1, lineOf(lines[i] ?? '').lead.length - lineOf(best.patched[i] ?? '').lead.length);
  }
  const finding = {
    line: first + 1,
    column: lineOf(lines[first] ?? '').lead.indexOf('\t') + 1,
    message: `YAML indentation error: ${tabbed.length} lines are indented with tabs (${lineRanges(tabbed)}); YAML allows spaces only: replace each tab with ${best.width} spaces`,
  };
  return { lines: changed, shifts, finding, parsed: best.parsed };
}

/** 0-based line indexes as 1-based ranges for a message: `lines 4-5, 7-12 and 20` (the first 6 ranges, then a count). */
function lineRanges(indexes: readonly number[]): string {
  const ranges: string[] = [];
  for (let k = 0; k < indexes.length; ) {
    let end = k;
    while (end + 1 < indexes.length && (indexes[end + 1] as number) === (indexes[end] as number) + 1) end++;
    const a = (indexes[k] as number) + 1;
    const b = (indexes[end] as number) + 1;
    ranges.push(a === b ? `${a}` : `${a}-${b}`);
    k = end + 1;
  }
  const shown = ranges.slice(0, 6);
  const more = ranges.length - shown.length;
  const list =
    more > 0
      ? `${shown.join(', ')} and ${more} more`
      : shown.length > 1
        ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`
        : shown.join('');
  return `line${indexes.length > 1 ? 's' : ''} ${list}`;
}

/**
 * The re-indentation of a line near the first error (on its line, the one after or the one before) that leaves the
 * fewest errors, counted up to some lines past the error (so a candidate costs a parse of the document's start only).
 */
function bestReindentation(
  lines: readonly string[],
  from: number,
  to: number,
  errorLine: number,
  budget: Budget,
): { line: number; indent: number } | undefined {
  const contentAt = (i: number) => i >= from && i < to && lineOf(lines[i] ?? '').content;
  let next = errorLine + 1;
  while (next < to && !contentAt(next)) next++;
  let previous = errorLine - 1;
  while (previous >= from && !contentAt(previous)) previous--;
  const candidates = [errorLine, next, previous].filter(contentAt);
  const limit = Math.min(to, errorLine + NEIGHBOURHOOD);
  const indents = new Set<number>([0]);
  const leads = new Map<string, number>();
  for (let i = Math.max(from, errorLine - NEIGHBOURHOOD); i < limit; i++) {
    const l = lineOf(lines[i] ?? '');
    // The text of a block scalar shows no indentation of the structure: a line re-indented to it would become text.
    if (!l.content || (i !== errorLine && insideFreeConstruct(lines, from, i))) continue;
    if (!l.lead.includes('\t')) indents.add(l.lead.length).add(l.keyColumn);
    // Two spaces deeper than a line opening a block: when every child is indented with tabs, no line shows the
    // children's column, and column 1 alone would make them the parent's siblings.
    if (!l.lead.includes('\t') && opensBlock(lines[i] ?? '')) indents.add(l.keyColumn + 2);
    leads.set(l.lead, (leads.get(l.lead) ?? 0) + 1);
  }
  const unpatched = parseRegion(lines, from, limit, budget);
  if (unpatched === undefined) return undefined;
  const baseline = errorCount(unpatched);
  const baselineFirst = firstErrorLine(unpatched, limit);
  let best: Candidate | undefined;
  for (const [order, i] of candidates.entries()) {
    const original = lines[i] ?? '';
    const { lead } = lineOf(original);
    // A line at column 0 starting with `---` or `...` would become a document marker.
    if (/^(?:---|\.\.\.)(?:\s|$)/.test(original.slice(lead.length))) continue;
    for (const indent of indents) {
      if (indent === lead.length && !lead.includes('\t')) continue;
      const patched = [...lines];
      patched[i] = ' '.repeat(indent) + original.slice(lead.length);
      // A re-indentation that parses only because it makes the line a block scalar's text is no fix.
      if (insideFreeConstruct(patched, from, i) && !insideFreeConstruct(lines, from, i)) continue;
      const result = parseRegion(patched, from, limit, budget);
      if (result === undefined) return best;
      const errors = errorCount(result);
      const first = firstErrorLine(result, limit);
      if (errors >= baseline && first <= baselineFirst) continue;
      // The first error pushed furthest down wins (a wrong line further down leaves other candidates' errors in the
      // count), then the fewest errors.
      const rank = [
        -first,
        errors,
        followsAbove(lines, i, indent, from),
        leads.get(lead) ?? 0,
        // A tab most likely stands for one level: two spaces, as this project's files indent.
        Math.abs(indent - lead.replace(/\t/g, '  ').length),
        order,
      ];
      if (best === undefined || before(rank, best.rank)) best = { line: i, indent, rank };
    }
  }
  return best;
}

/** Whether a line at `indent` has a sibling: a line before or after it at that column, within the same parent. */
function hasSibling(lines: readonly string[], at: number, indent: number, from: number, to: number): boolean {
  for (let i = at - 1; i >= from; i--) {
    const l = lineOf(lines[i] ?? '');
    if (!l.content || l.lead.length > indent) continue;
    // A key under an item (`- key: a` then `  enabled: true`), or an item after an item of the same list.
    if (l.keyColumn === indent || (l.lead.length === indent && isItem(lines[i] ?? '') && isItem(lines[at] ?? ''))) {
      return true;
    }
    break;
  }
  for (let i = at + 1; i < to; i++) {
    const l = lineOf(lines[i] ?? '');
    if (!l.content || l.lead.length > indent) continue;
    return l.lead.length === indent;
  }
  return false;
}

function describe(
  lines: readonly string[],
  at: number,
  lead: string,
  indent: number,
  from: number,
  to: number,
): IndentationFinding {
  const spaces = (n: number) => `${n} ${n === 1 ? 'space' : 'spaces'}`;
  const sibling = hasSibling(lines, at, indent, from, to);
  const fix = indent === 0 ? 'remove its indentation' : `indent it ${spaces(indent)}`;
  const tab = lead.indexOf('\t');
  if (tab >= 0) {
    return {
      line: at + 1,
      column: tab + 1,
      message: `YAML indentation error: a tab is used for indentation; YAML allows spaces only (${fix}${sibling ? ', like its siblings' : ''})`,
    };
  }
  const siblings = indent === 0 ? 'its siblings are not indented' : `its siblings ${indent}`;
  const message = sibling
    ? `YAML indentation error: this line is indented ${spaces(lead.length)}, ${siblings}; ${fix}`
    : `YAML indentation error: this line is indented ${spaces(lead.length)} where ${indent} are expected; ${fix}`;
  return { line: at + 1, column: lead.length + 1, message };
}
