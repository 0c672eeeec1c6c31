/**
 * The summary of an apply (or archive) run for a terminal: one line per result that was not a noop, every failure,
 * the counts, and where the report and archive objects were written.
 */
import type { ChangeResult, RunReport } from '../model.ts';
import { isArchiveFailure } from '../report.ts';
import { ACTION_SYMBOLS, paint } from './change-lines.ts';
import { failureLines } from './plan-text.ts';
import { PLAIN_STYLE, type Style } from './style.ts';

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

function resultLine(result: ChangeResult, style: Style): string {
  const change = result.change;
  const id = result.id ?? change.id;
  const idText = id !== undefined ? ` (id ${id})` : '';
  const name = change.key === change.kind ? change.kind : `${change.kind} "${change.key}"`;
  const head = `${ACTION_SYMBOLS[change.action]} ${change.target.name} ${name}${idText}: `;
  const message = result.message !== undefined && result.message !== '' ? `: ${result.message}` : '';
  switch (result.status) {
    case 'applied':
      return paint(style, change.action, `${head}${change.action} applied`);
    case 'skipped':
      return style.dim(`${head}skipped${message}`);
    case 'failed':
      return style.error(`${head}FAILED${message}`);
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
    out.push(
      `Version manifest: sha256 ${m.sha256.slice(0, 12)} ${m.changed ? style.create('(new, stored)') : '(unchanged since the last archive)'}`,
    );
    out.push(`  ${m.location}`);
  }
  if (archive?.usage !== undefined) {
    const { month, keys, projects } = archive.usage;
    const n = keys.length;
    const of = projects === undefined ? '' : ` of ${projects} project${projects === 1 ? '' : 's'}`;
    out.push(
      n === 0
        ? `Usage ${month}: nothing stored`
        : `Usage ${month}: ${n} snapshot${n === 1 ? '' : 's'} (physical hosts, host assignments${of})`,
    );
  }
  for (const error of archive?.errors ?? []) out.push(style.error(`x ${error}`));
  // The archive errors are in `failures` too (under the archive target): listed once, counted once.
  const failures = report.failures.filter((f) => !isArchiveFailure(f));
  out.push(...failureLines(failures, style, ''));
  for (const warning of report.warnings ?? []) out.push(style.error(`Warning: ${warning}`));
  const bad = (archive?.errors.length ?? 0) + failures.length;
  const line = `Archive complete${bad > 0 ? ` with ${bad} error${bad === 1 ? '' : 's'}` : ''}; ${report.apiCalls.total} API call${report.apiCalls.total === 1 ? '' : 's'}.`;
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
  for (const warning of report.warnings ?? []) out.push(style.error(`Warning: ${warning}`));
  if ((report.warnings ?? []).length > 0) out.push('');
  const shown = report.results.filter((r) => r.change.action !== 'noop' || r.status !== 'applied');
  for (const result of shown) out.push(`  ${resultLine(result, style)}`);
  if (shown.length > 0) out.push('');
  if (report.failures.length > 0) {
    out.push(style.error(style.bold('Failures:')));
    out.push(...failureLines(report.failures, style));
    out.push('');
  }
  const count = (status: ChangeResult['status']) => report.results.filter((r) => r.status === status).length;
  const seconds = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 1000;
  const took = Number.isFinite(seconds) ? ` in ${seconds.toFixed(1)} s` : '';
  const line =
    `${label} complete: ${count('applied')} applied, ${count('failed')} failed, ${count('skipped')} skipped, ` +
    `${count('not-converging')} not converging, ${report.summary.blocked} blocked, ` +
    `${report.failures.length} target${report.failures.length === 1 ? '' : 's'} failed${took}; ` +
    `${report.apiCalls.total} API call${report.apiCalls.total === 1 ? '' : 's'}.`;
  const bad = count('failed') + count('not-converging') + report.failures.length + report.summary.blocked > 0;
  out.push(style.bold(bad ? style.error(line) : style.ok(line)));
  const reportLocation = options.reportLocation ?? report.reportLocation;
  if (reportLocation !== undefined) out.push(`Report: ${reportLocation}`);
  for (const location of options.archived ?? []) out.push(`Archived: ${location}`);
  return `${out.join('\n')}\n`;
}
