/** The pure renderers of plans and run reports: human text, JSON and Markdown. */
export { ACTION_SYMBOLS, changeBody, changeHeader, changeLines } from './change-lines.ts';
export { heldLine, targetModeNote } from './held-recap.ts';
export { canonicalize, KEY_ORDER, renderJson, renderPlanJson, renderReportJson } from './json.ts';
export { escapeMarkdown, renderPlanMarkdown } from './plan-markdown.ts';
export {
  DEFAULT_TEXT_RENDER_OPTIONS,
  failureLine,
  renderPlanText,
  type TextRenderOptions,
  unmanagedCounts,
  unmanagedNote,
} from './plan-text.ts';
export { type RunSummaryOptions, renderRunSummary } from './run-summary.ts';
export { ANSI_STYLE, PLAIN_STYLE, type Style, styleFor } from './style.ts';
export {
  countChanges,
  groupByTarget,
  hasChanges,
  hasWrites,
  type PlanCounts,
  summaryLine,
  targetTitle,
} from './summary.ts';
export {
  formatAttribution,
  formatFieldChange,
  formatValue,
  isSecretRef,
  maskSecrets,
  SECRET_PLACEHOLDER,
} from './values.ts';
