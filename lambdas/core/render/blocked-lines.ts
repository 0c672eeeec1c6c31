/**
 * The closing list of blocked changes, as `terraform plan` ends with its warnings and their count: a blocked change
 * (a create whose secret cannot be resolved, a delete held for it) sits among hundreds of lines of its target, and a
 * reader who only looks at the end of the plan, or at a Markdown comment whose sections are folded, must still see it.
 * Each is named once, by target and header; its reason stays under it in the body (not shown twice).
 */
import type { Change } from '../model.ts';
import { printable } from '../printable.ts';
import { ACTION_SYMBOLS, changeHeader } from './change-lines.ts';
import { targetTitle } from './summary.ts';

/** Blocked changes named one by one before the rest are counted in one line. */
export const BLOCKED_SHOWN = 20;

/** The closing list: its heading, its entries, and the line counting those past BLOCKED_SHOWN, when there are. */
export interface BlockedRecap {
  heading: string;
  /** `Project x (id): alertConfig "k" (id …)`, printable. */
  entries: string[];
  more?: string;
}

/**
 * The closing list of `changes`' blocked ones, or undefined when none is. `reasons`: where the reader finds each
 * one's reason (`under each above` in the terminal, `in the sections below` in the Markdown comment).
 */
export function blockedRecap(changes: readonly Change[], reasons: string): BlockedRecap | undefined {
  const blocked = changes.filter((c) => c.action === 'blocked');
  if (blocked.length === 0) return undefined;
  const n = blocked.length;
  const heading = `Blocked: ${n} change${n === 1 ? ' is' : 's are'} not applied until resolved (reasons ${reasons}):`;
  // The header without its `!`: the heading says blocked, and a `!` inside the line would read as punctuation. A
  // delete held back (its reason starts `not deleted:`, held-deletes.ts, late-creates.ts) says so: the summary line
  // counts it as blocked, never as a delete, and this is where the reader learns a delete is waiting.
  const entries = blocked.slice(0, BLOCKED_SHOWN).map((c) => {
    const held = c.reason.startsWith('not deleted') ? ' (delete held)' : '';
    return printable(`${targetTitle(c.target)}: ${changeHeader(c).slice(ACTION_SYMBOLS.blocked.length + 1)}${held}`);
  });
  const rest = n - entries.length;
  return rest > 0
    ? { heading, entries, more: `... and ${rest} more (each is listed in --json)` }
    : { heading, entries };
}
