/**
 * What a plan says about absolute change windows that are over at its start. Validation cannot say it: whether a
 * window is over depends on when the run happens, not on the files. An allow window that ended holds its targets for
 * ever when no other allow window of theirs can still open: a warning, with the way out. A deny window that ended holds
 * nothing: a quiet note, so stale freezes get cleaned up.
 */
import { parseInstant, targetOfKey, windowMatches } from './change-windows.ts';
import type { ChangeWindow } from './model.ts';

/** Most target keys one warning names. */
const LISTED = 5;

/** Notices for the plan: `warnings` (loud) and `notes` (quiet). */
export interface WindowNotices {
  warnings: string[];
  notes: string[];
}

/** The instant an absolute window ends, or undefined for a weekly one (it always opens again). */
function endOf(window: ChangeWindow): number | undefined {
  return window.from === undefined || window.until === undefined ? undefined : parseInstant(window.until);
}

function listed(keys: readonly string[]): string {
  const shown = keys.slice(0, LISTED).join(', ');
  return keys.length > LISTED ? `${shown} and ${keys.length - LISTED} more` : shown;
}

/**
 * The notices about the `windows` that ended at or before `at` (ISO, the plan's start), for the targets with these
 * keys. A target is held for ever by ended allow windows when every allow window matching it has ended. An ended allow
 * window none of these targets matches is not mentioned (a run planning its targets says it).
 */
export function endedWindowNotices(
  windows: readonly ChangeWindow[],
  keys: readonly string[],
  at: string,
): WindowNotices {
  const now = Date.parse(at);
  const ended = (w: ChangeWindow) => {
    const end = endOf(w);
    return end !== undefined && end <= now;
  };
  const notices: WindowNotices = { warnings: [], notes: [] };
  for (const window of windows.filter(ended)) {
    const until = new Date(endOf(window) ?? 0).toISOString();
    if (window.kind === 'deny') {
      notices.notes.push(
        `change window ${window.name} (deny) ended at ${until}: it holds nothing any more; remove it from Settings.changeWindows`,
      );
      continue;
    }
    const matched = keys.filter((key) => windowMatches(window, targetOfKey(key)));
    // None of its targets in this run (a --project run): a run that plans them says it.
    if (matched.length === 0) continue;
    const forEver = matched.filter((key) =>
      windows.every((w) => w.kind !== 'allow' || !windowMatches(w, targetOfKey(key)) || ended(w)),
    );
    if (forEver.length === 0) {
      notices.notes.push(
        `change window ${window.name} (allow) ended at ${until}: it can never open again and holds nothing this run (its targets follow their other allow windows); remove it from Settings.changeWindows`,
      );
      continue;
    }
    notices.warnings.push(
      `change window ${window.name} (allow) ended at ${until} and can never open again: it holds ${forEver.length} target${forEver.length === 1 ? '' : 's'} for ever (${listed(forEver)}), nothing there is written; remove it from Settings.changeWindows, or extend its until`,
    );
  }
  return notices;
}
