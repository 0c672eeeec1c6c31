/** `opsman-gitops validate`: load and check the desired state; print the issues or a summary. No API call. */
import { renderJson } from '../../core/render/json.ts';
import { type CommandContext, requireDirectory } from '../context.ts';
import { EXIT } from '../errors.ts';
import { desiredModule, desiredSource, type LoadResult, type ValidationIssue } from '../wiring.ts';

/** Loads the desired state of `--desired` (shared by validate, plan, apply and the demo). */
export async function loadDesired(
  dir: string,
): Promise<{ result: LoadResult; formatIssues: (issues: ValidationIssue[]) => string }> {
  await requireDirectory(dir, '--desired');
  const mod = await desiredModule();
  const result = await mod.loadDesiredState(await desiredSource(dir));
  return { result, formatIssues: (issues) => mod.formatIssues(issues) };
}

/** Runs validate; resolves to the exit code. */
export async function runValidate(ctx: CommandContext): Promise<number> {
  const { result, formatIssues } = await loadDesired(ctx.options.desired);
  const out = ctx.io.stdout;
  if (ctx.options.json) {
    out.write(renderJson(result.ok ? { ok: true, summary: result.summary } : { ok: false, issues: result.issues }));
    return result.ok ? EXIT.ok : EXIT.error;
  }
  if (result.ok) {
    out.write(`${ctx.style.ok('Valid')}: ${result.summary}\n`);
    return EXIT.ok;
  }
  // formatIssues ends with its own count line ("2 errors in 1 file"): no second summary here.
  const text = formatIssues(result.issues);
  out.write(text.endsWith('\n') ? text : `${text}\n`);
  return EXIT.error;
}
