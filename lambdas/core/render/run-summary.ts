/**
 * The summary of an apply (or archive) run for a terminal: one line per result that was not a noop, every failure,
 * the counts, and where the report and archive objects were written.
 */
import type { ChangeResult, RunReport } from '../model.ts';
import { ACTION_SYMBOLS, paint } from './change-lines.ts';
import { failureLine } from './plan-text.ts';
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
  const head = `${ACTION_SYMBOLS[change.action]} ${change.target.name} ${change.kind} "${change.key}"${idText}: `;
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

/** Renders a run's results; the result ends with a newline. */
export function renderRunSummary(report: RunReport, options: RunSummaryOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  const label = options.label ?? 'Apply';
  const out: string[] = [];
  const shown = report.results.filter((r) => r.change.action !== 'noop' || r.status !== 'applied');
  for (const result of shown) out.push(`  ${resultLine(result, style)}`);
  if (shown.length > 0) out.push('');
  if (report.failures.length > 0) {
    out.push(style.error(style.bold('Failures:')));
    for (const failure of report.failures) out.push(`  ${style.error(`x ${failureLine(failure)}`)}`);
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
  if (options.reportLocation !== undefined) out.push(`Report: ${options.reportLocation}`);
  for (const location of options.archived ?? []) out.push(`Archived: ${location}`);
  return `${out.join('\n')}\n`;
}
