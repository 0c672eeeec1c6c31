/** Reading a plan saved by `plan --out`: size-bounded, parsed, and shape-checked before it reaches the reconciler. */
import { readFile, stat } from 'node:fs/promises';
import { whereJsonBroke } from '../../../shared/json-position.ts';
import { MODES, type Plan } from '../../core/model.ts';
import { CliError } from '../errors.ts';

/** Largest saved plan accepted (bytes). */
export const MAX_SAVED_PLAN_BYTES = 64 * 1024 * 1024;

function invalid(file: string, why: string): CliError {
  return new CliError('CLI_SAVED_PLAN_INVALID', `${file} is not a plan saved by \`opsman-gitops plan --out\`: ${why}`);
}

/** Checks the fields apply relies on; the reconciler checks staleness against live state. */
export function checkPlanShape(value: unknown, file: string): Plan {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(file, 'not a JSON object');
  const p = value as Record<string, unknown>;
  if (p.formatVersion !== 1) throw invalid(file, `formatVersion must be 1, found ${JSON.stringify(p.formatVersion)}`);
  if (typeof p.runId !== 'string') throw invalid(file, 'runId missing');
  if (typeof p.mode !== 'string' || !(MODES as readonly string[]).includes(p.mode)) throw invalid(file, 'bad mode');
  if (typeof p.desired !== 'object' || p.desired === null) throw invalid(file, 'desired missing');
  if (typeof p.liveDigests !== 'object' || p.liveDigests === null) throw invalid(file, 'liveDigests missing');
  if (!Array.isArray(p.changes)) throw invalid(file, 'changes must be a list');
  if (!Array.isArray(p.failures)) throw invalid(file, 'failures must be a list');
  for (const [i, c] of p.changes.entries()) {
    const change = c as Record<string, unknown> | null;
    if (
      typeof change !== 'object' ||
      change === null ||
      typeof change.action !== 'string' ||
      typeof change.key !== 'string'
    ) {
      throw invalid(file, `changes[${i}] is not a change`);
    }
  }
  return value as Plan;
}

/** Reads and checks a saved plan file. */
export async function readSavedPlan(file: string): Promise<Plan> {
  const info = await stat(file).catch(() => null);
  if (info === null || !info.isFile()) throw new CliError('CLI_SAVED_PLAN_MISSING', `--plan ${file}: no such file`);
  if (info.size > MAX_SAVED_PLAN_BYTES) throw invalid(file, `larger than ${MAX_SAVED_PLAN_BYTES} bytes`);
  const text = await readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Where, never what: a file passed to --plan by mistake (a secrets file, a key) must not be quoted.
    throw invalid(file, `not JSON${whereJsonBroke(text, error)}`);
  }
  return checkPlanShape(parsed, file);
}
