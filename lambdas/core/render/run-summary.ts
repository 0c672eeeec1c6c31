/**
 * The summary of an apply (or archive) run for a terminal: one line per result that was not a noop, every failure,
 * the counts, and where the report and archive objects were written. An interrupted apply says so instead of
 * "complete": what was applied, then what was not started, then how to finish.
 */
import { INTERRUPTED_MESSAGE } from '../interrupt.ts';
import type { ChangeResult, RunReport } from '../model.ts';
import { printable } from '../printable.ts';
import { failuresBeyondWrites, isArchiveFailure } from '../report.ts';
import { ACTION_SYMBOLS, paint } from './change-lines.ts';
import { failureLines } from './plan-text.ts';
import { PLAIN_STYLE, type Style } from './style.ts';
import { targetTitle } from './summary.ts';

/** Extra facts the CLI knows and the report does not. */
export interface RunSummaryOptions {
  style?: Style;
  /** Where the JSON run report was written (a path or URL). */
  reportLocation?: string;
  /** Archive objects written during the run (manifests, usage), as locations. */
  archived?: readonly string[];
  /** First word of the summary line (default `Apply`). */
  label?: string;
}

/** True for a write an interrupted run never started (apply-target.ts notStarted). */
function notStarted(result: ChangeResult): boolean {
  return result.status === 'skipped' && result.message === INTERRUPTED_MESSAGE;
}

/**
 * `+ payments-prod alertConfig "no-primary"`: a change's symbol, target and name (printable). With `titled`, the target
 * as the plan's section header names it, with its id (`+ Project payments-prod (5e22…) alertConfig "no-primary"`).
 */
function changeName(result: ChangeResult, titled = false): string {
  const change = result.change;
  const name = change.key === change.kind ? change.kind : `${change.kind} "${change.key}"`;
  const target = titled ? targetTitle(change.target) : printable(change.target.name);
  return `${ACTION_SYMBOLS[change.action]} ${target} ${printable(name)}`;
}

function resultLine(result: ChangeResult, style: Style): string {
  const change = result.change;
  const id = result.id ?? change.id;
  const idText = id !== undefined ? ` (id ${printable(id)})` : '';
  // A failed write is listed only here (not again under Failures:), so its line names the target with its id, as the
  // Failures: line did: two projects of one name in two organizations are then told apart.
  const head = `${changeName(result, result.status === 'failed')}${idText}: `;
  // The message may quote Ops Manager's answer: printable, like every text from outside.
  const message = result.message !== undefined && result.message !== '' ? `: ${printable(result.message)}` : '';
  switch (result.status) {
    case 'applied':
      return paint(style, change.action, `${head}${change.action} applied`);
    case 'skipped':
      return style.dim(`${head}skipped${message}`);
    case 'failed': {
      // The stable code, as the Failures: lines and the Lambda's `target failed` line give it: what to search for.
      const code = result.code !== undefined ? ` (${printable(result.code)})` : '';
      return style.error(`${head}${change.action} FAILED${message}${code}`);
    }
    case 'not-converging':
      return style.error(`${head}NOT CONVERGING${message}`);
  }
}

/** What an archive run stored: the manifest (new or unchanged), the usage month and files, and any errors. */
export function renderArchiveSummary(report: RunReport, options: RunSummaryOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  const archive = report.archive;
  const out: string[] = [];
  if (archive?.manifest !== undefined) {
    const m = archive.manifest;
    let what = '(unchanged since the last archive)';
    if (m.changed) what = style.create('(new, stored)');
    else if (m.restored === true) what = style.update('(known, copy restored)');
    // Known, yet not what the last archive found: Ops Manager went back to an earlier manifest. Never "unchanged".
    if (!m.changed && m.previous !== undefined) {
      const restored = m.restored === true ? ', copy restored' : '';
      what = style.update(
        `(known${restored}: seen before, but changed since the last archive, which found sha256 ${printable(m.previous.slice(0, 12))})`,
      );
    }
    out.push(`Version manifest: sha256 ${m.sha256.slice(0, 12)} ${what}`);
    out.push(`  ${m.location}`);
  }
  if (archive?.usage !== undefined) {
    const { month, keys, projects } = archive.usage;
    // Keys of another month are the previous month's document, closed by this run: said on a line of their own, so
    // that this month's count and label are only this month's.
    const own = keys.filter((k) => k.startsWith(`usage/${month}/`));
    const closed = [...new Set(keys.filter((k) => !own.includes(k)).map((k) => k.split('/')[1] ?? k))].sort();
    const n = own.length;
    const of = projects === undefined ? '' : ` of ${projects} project${projects === 1 ? '' : 's'}`;
    // Each snapshot by what it is, only those stored: physical hosts stored and host assignments failed is not "host
    // assignments of 0 projects".
    const files = own.map((k) => k.slice(`usage/${month}/`.length));
    const names = [
      ...(files.includes('physical-hosts.json') ? ['physical hosts'] : []),
      ...(files.includes('host-assignments.json') ? [`host assignments${of}`] : []),
      ...files.filter((f) => f !== 'physical-hosts.json' && f !== 'host-assignments.json').map((f) => printable(f)),
    ];
    out.push(
      n === 0
        ? `Usage ${month}: nothing stored`
        : `Usage ${month}: ${n} snapshot${n === 1 ? '' : 's'} (${names.join(', ')})`,
    );
    for (const m of closed) out.push(`Usage ${m}: closed (host assignments read again for the whole month)`);
  }
  // A part Settings turns off, said when the other part ran (with both off, the command says "nothing written" why).
  const off = archive?.off ?? [];
  if (off.length === 1) {
    const part = off[0] === 'versionManifest' ? 'Version manifest' : 'Usage';
    out.push(style.dim(`${part}: not archived (Settings turns off archive.${off[0]})`));
  }
  for (const error of archive?.errors ?? []) out.push(style.error(printable(`x ${error}`)));
  // The archive errors are in `failures` too (under the archive target): listed once, counted once.
  const failures = report.failures.filter((f) => !isArchiveFailure(f));
  out.push(...failureLines(failures, style, ''));
  for (const warning of report.warnings ?? []) out.push(style.error(printable(`Warning: ${warning}`)));
  const bad = (archive?.errors.length ?? 0) + failures.length;
  const line = `Archive ${bad > 0 ? `finished with ${bad} error${bad === 1 ? '' : 's'}` : 'complete'}; ${report.apiCalls.total} API call${report.apiCalls.total === 1 ? '' : 's'}.`;
  out.push(style.bold(bad > 0 ? style.error(line) : style.ok(line)));
  const reportLocation = options.reportLocation ?? report.reportLocation;
  if (reportLocation !== undefined) out.push(`Report: ${reportLocation}`);
  return `${out.join('\n')}\n`;
}

/** Renders a run's results; the result ends with a newline. */
export function renderRunSummary(report: RunReport, options: RunSummaryOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  const label = options.label ?? 'Apply';
  const out: string[] = [];
  for (const warning of report.warnings ?? []) out.push(style.error(printable(`Warning: ${warning}`)));
  if ((report.warnings ?? []).length > 0) out.push('');
  const interrupted = report.interrupted;
  // Interrupted: the writes never started are listed apart, by name only (their reason is the same for all).
  const unstarted = interrupted === undefined ? [] : report.results.filter(notStarted);
  const apart = new Set(unstarted);
  const shown = report.results.filter((r) => (r.change.action !== 'noop' || r.status !== 'applied') && !apart.has(r));
  for (const result of shown) out.push(`  ${resultLine(result, style)}`);
  if (shown.length > 0) out.push('');
  if (unstarted.length > 0) {
    out.push(style.bold('Not started (interrupted before these writes began; the next apply plans them again):'));
    for (const result of unstarted) out.push(`  ${style.dim(changeName(result))}`);
    out.push('');
  }
  // A failed write is listed once, on its own result line above (with its id and Ops Manager's answer): `failures`
  // holds it too (the JSON report counts failed targets from it), so only the failures that are not writes follow.
  const failures = failuresBeyondWrites(report.failures, report.results);
  if (failures.length > 0) {
    out.push(style.error(style.bold('Failures:')));
    out.push(...failureLines(failures, style));
    out.push('');
  }
  const count = (status: ChangeResult['status']) => report.results.filter((r) => r.status === status).length;
  const seconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  const took = Number.isFinite(seconds) ? ` in ${seconds.toFixed(1)} s` : '';
  const targetsFailed = report.summary.targetsFailed;
  const bad = count('failed') + count('not-converging') + report.failures.length + report.summary.blocked > 0;
  // "complete" only when nothing went wrong: a run with failed writes did not complete what it set out to do.
  const head =
    interrupted === undefined
      ? `${label} ${bad ? 'finished with errors' : 'complete'}: ${count('applied')} applied, `
      : `${label} interrupted${interrupted.reason === 'interrupted' ? '' : ` by ${interrupted.reason}`}: ` +
        `${count('applied')} applied, ${unstarted.length} not started, `;
  const line =
    `${head}${count('failed')} failed, ${count('skipped') - unstarted.length} skipped, ` +
    `${count('not-converging')} not converging, ${report.summary.blocked} blocked, ` +
    // Targets, not failure entries: three failed writes of one project are one target failed (as problemsLine says).
    `${targetsFailed} target${targetsFailed === 1 ? '' : 's'} failed${took}; ` +
    `${report.apiCalls.total} API call${report.apiCalls.total === 1 ? '' : 's'}.`;
  out.push(style.bold(bad || interrupted !== undefined ? style.error(line) : style.ok(line)));
  if (interrupted !== undefined) {
    out.push('The writes in flight finished, the state was saved and the lock released: run apply again to finish.');
  }
  const reportLocation = options.reportLocation ?? report.reportLocation;
  if (reportLocation !== undefined) out.push(`Report: ${reportLocation}`);
  for (const location of options.archived ?? []) out.push(`Archived: ${location}`);
  return `${out.join('\n')}\n`;
}
