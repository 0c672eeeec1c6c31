/**
 * The lines of one change, shared by the human and the Markdown renderers: a symbol and header, the reason, the
 * field-level before/after, and who changed a drifted object.
 */
import { fightWayOut } from '../fight-notice.ts';
import type { Change, ChangeAction } from '../model.ts';
import { printable } from '../printable.ts';
import { listChangeLines } from './list-lines.ts';
import type { Style } from './style.ts';
import { formatAttribution, formatFieldChange, isSecretPath, objectLines, readablePath } from './values.ts';

/**
 * Symbol of each action, as in `terraform plan` (`<=` adopt, `=>` release, `!` blocked and `?` drift are ours: a
 * release hands a config back out of management as an adoption takes one in, and is never a `-`: nothing is deleted).
 */
export const ACTION_SYMBOLS: Record<ChangeAction, string> = {
  create: '+',
  update: '~',
  enable: '~',
  disable: '~',
  delete: '-',
  release: '=>',
  adopt: '<=',
  noop: ' ',
  blocked: '!',
  drift: '?',
};

/** Colour of a line by action. */
export function paint(style: Style, action: ChangeAction, text: string): string {
  switch (action) {
    case 'create':
      return style.create(text);
    case 'update':
    case 'enable':
    case 'disable':
      return style.update(text);
    case 'delete':
      return style.delete(text);
    case 'adopt':
    case 'release':
      return style.adopt(text);
    case 'blocked':
      return style.blocked(text);
    case 'drift':
      return style.drift(text);
    case 'noop':
      return text;
  }
}

/** `~ alertConfig "host-down" (id 5f…)`: symbol, kind, key, id and template. */
export function changeHeader(change: Change): string {
  const id = change.id !== undefined ? ` (id ${change.id})` : '';
  const t = change.template;
  const template = t === undefined ? '' : ` from template ${t.name} (${t.file}:${t.line})`;
  const verb = change.action === 'enable' || change.action === 'disable' ? ` ${change.action}` : '';
  const name = change.key === change.kind ? change.kind : `${change.kind} "${change.key}"`;
  return `${ACTION_SYMBOLS[change.action]} ${name}${id}${verb}${template}`;
}

/**
 * The body lines of a change (unindented): field changes (a list field element by element), or the whole object for a
 * create or a delete (a list's elements led by the change's own `+` or `-`). `fightWarningShown` false: the reader
 * does not see the change's update-fight warning, so its fight line carries the way out instead of pointing at it.
 */
export function changeBody(change: Change, fightWarningShown = true): string[] {
  const lines: string[] = [];
  if (change.fields.length > 0) {
    for (const field of change.fields) {
      // A list on both sides (matchers, roles): the elements that differ, not both whole lists.
      if (
        Array.isArray(field.before) &&
        Array.isArray(field.after) &&
        !isSecretPath(field.path) &&
        field.secret !== true
      )
        lines.push(...listChangeLines(readablePath(field), field.before, field.after));
      else lines.push(formatFieldChange(field, change.action));
    }
  } else if (change.action === 'create' && change.after !== undefined) {
    lines.push(...objectLines(change.after, '+'));
  } else if (change.action === 'delete' && change.before !== undefined) {
    lines.push(...objectLines(change.before, '-'));
  }
  if (change.drift?.detected === true) {
    const attributions = change.drift.attribution ?? [];
    if (attributions.length === 0) {
      const why = change.drift.unattributed;
      lines.push(`changed outside opsman-gitops (who and when unknown${why === undefined ? '' : `: ${why}`})`);
    }
    for (const a of attributions) lines.push(formatAttribution(a));
    const fight = change.drift.fight;
    if (fight !== undefined) {
      // The pointer only when the reader can follow it: a warning left out (the Markdown comment quotes twenty) would
      // leave "see the warning" dangling, so the line then says the way out itself.
      const pointer = fightWarningShown ? ' (see the warning)' : `: two writers manage it; ${fightWayOut(change)}`;
      lines.push(
        `update fight: changed outside opsman-gitops on ${fight.runs} consecutive runs since ${fight.since}${pointer}`,
      );
    }
  }
  return lines;
}

/**
 * Every line of one change, indented for a target section, coloured by action. Each text is made printable before it
 * is coloured: keys, values, reasons and who changed a drifted object come from the files and from Ops Manager, and a
 * control or bidi character in them must be shown, never acted on by the terminal. `fightWarningShown`: as for
 * changeBody.
 */
export function changeLines(change: Change, style: Style, indent = '  ', fightWarningShown = true): string[] {
  const lines = [indent + paint(style, change.action, printable(changeHeader(change)))];
  if (change.reason !== '') lines.push(`${indent}    ${style.dim(printable(`# ${change.reason}`))}`);
  for (const line of changeBody(change, fightWarningShown)) {
    const text = line.startsWith('changed ') ? style.drift(printable(line)) : printable(line);
    lines.push(`${indent}    ${text}`);
  }
  return lines;
}
