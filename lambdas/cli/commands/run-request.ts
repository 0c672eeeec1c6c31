/** Building a RunRequest from the options, and printing a plan in the chosen format. */
import type { Plan } from '../../core/model.ts';
import { renderPlanJson } from '../../core/render/json.ts';
import { renderPlanMarkdown } from '../../core/render/plan-markdown.ts';
import { renderPlanText } from '../../core/render/plan-text.ts';
import { newRunId } from '../../core/run-id.ts';
import type { RunCommand, RunRequest } from '../../core/run-types.ts';
import type { CommandContext } from '../context.ts';
import { cliOwner } from '../runtime.ts';

/** The request of one reconcile run, from the global options. */
export function runRequest(ctx: CommandContext, command: RunCommand, savedPlan?: Plan): RunRequest {
  const { options } = ctx;
  const overrides: NonNullable<RunRequest['overrides']> = {};
  if (options.maxDeletes !== undefined) overrides.maxDeletes = options.maxDeletes;
  if (options.allowEmpty) overrides.allowEmpty = true;
  const request: RunRequest = {
    command,
    runId: newRunId(),
    owner: cliOwner(),
    leaseWaitMs: Math.round(options.leaseWaitSeconds * 1000),
  };
  if (options.mode !== undefined) request.mode = options.mode;
  if (options.projects.length > 0) {
    request.projects = [...options.projects];
    request.projectsField = '--project';
  }
  if (Object.keys(overrides).length > 0) request.overrides = overrides;
  if (savedPlan !== undefined) request.savedPlan = savedPlan;
  if (options.ignoreWindows && command === 'apply') request.ignoreWindows = true;
  return request;
}

/** Prints a plan on stdout as JSON, Markdown or text (coloured when the context says so). */
export function printPlan(ctx: CommandContext, plan: Plan): void {
  const { options, io, style } = ctx;
  if (options.json) io.stdout.write(renderPlanJson(plan));
  else if (options.markdown)
    io.stdout.write(renderPlanMarkdown(plan, `opsman-gitops ${plan.mode === 'observe' ? 'drift report' : 'plan'}`));
  else io.stdout.write(renderPlanText(plan, { style }));
}
