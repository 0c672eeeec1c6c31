/** `opsman-gitops validate`: load and check the desired state; print the issues or a summary. No API call. */
import { renderJson } from '../../core/render/json.ts';
import { type CommandContext, requireDirectory } from '../context.ts';
import { EXIT } from '../errors.ts';
import { invalidDesiredDocument, renderFailureJson } from '../json-failure.ts';
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
    // The failure has the shape of every --json failure (json-failure.ts): plan --json on the same files prints it too.
    const message = `the desired state in ${ctx.options.desired} is invalid`;
    out.write(
      result.ok
        ? renderJson({ ok: true, summary: result.summary })
        : renderFailureJson(invalidDesiredDocument(message, result.issues)),
    );
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
