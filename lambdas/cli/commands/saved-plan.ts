/**
 * Plans saved by `plan --out` and read by `apply --plan`: sealed with a MAC when written; size-bounded, parsed,
 * shape-checked and their seal verified before they reach the reconciler.
 */

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { describeFsCause } from '../../../shared/fs-cause.ts';
import { isRecord } from '../../../shared/is-record.ts';
import { whereJsonBroke } from '../../../shared/json-position.ts';
import { NotRegularFileError, openRegularFile } from '../../../shared/regular-file.ts';
import { SavedPlanInvalidError } from '../../core/errors.ts';
import { PLAN_FORMAT_VERSION, type Plan } from '../../core/model.ts';
import { renderJson } from '../../core/render/json.ts';
import { checkSavedPlan } from '../../core/saved-plan.ts';
import { CliError } from '../errors.ts';
import { describeToolVersion, readToolVersion, sameToolVersion, type ToolVersion } from '../tool-version.ts';

/** Largest saved plan accepted (bytes). */
export const MAX_SAVED_PLAN_BYTES = 64 * 1024 * 1024;

function invalid(file: string, why: string): CliError {
  return new CliError('CLI_SAVED_PLAN_INVALID', `${file} is not a plan saved by \`opsman-gitops plan --out\`: ${why}`);
}

function otherVersion(file: string, why: string, tool: ToolVersion): CliError {
  return new CliError(
    'CLI_SAVED_PLAN_OTHER_VERSION',
    `${file} was made by ${why}; this is ${describeToolVersion(tool)}: a saved plan applies only with the version that made it; nothing was written: make a new plan with this version (\`plan --out\`), or apply this one with the version that made it`,
  );
}

/**
 * Refuses a sealed plan made by another build of the tool (Terraform's rule for plan files): what a plan means (its
 * actions, the order they run in, what its digests cover) is defined by the code that made it. Checked before the rest
 * of the format (an older format only is named first, checkOlderFormat): another version's plan is not malformed, and
 * "make a new plan" is the way out whatever else differs.
 */
function checkMadeBy(p: Record<string, unknown>, file: string, tool: ToolVersion): void {
  const seal = p.savedFor;
  // No seal at all: refused by openSealedPlan, with its own reason.
  if (typeof seal !== 'object' || seal === null) return;
  const madeBy = (seal as Record<string, unknown>).madeBy;
  if (madeBy === undefined) {
    throw otherVersion(file, 'an earlier version of opsman-gitops (one that did not record its version)', tool);
  }
  const found = readToolVersion(madeBy);
  if (found === undefined) throw otherVersion(file, 'a version of opsman-gitops this one cannot read', tool);
  if (!sameToolVersion(found, tool)) throw otherVersion(file, describeToolVersion(found), tool);
}

/**
 * Refuses a plan of an earlier plan format (saved by a release before this format's actions existed), saying so. Checked
 * before the build (checkMadeBy): such a plan's build always differs too, but build identities have no order, and an
 * older format tells the operator which way they went (an upgrade between plan and apply) and that only a new plan
 * helps. A newer format is left to checkMadeBy, then to the check of the format below.
 */
function checkOlderFormat(p: Record<string, unknown>, file: string, tool: ToolVersion): void {
  const version = p.formatVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version >= PLAN_FORMAT_VERSION)
    return;
  const seal = p.savedFor;
  const found =
    typeof seal === 'object' && seal !== null ? readToolVersion((seal as Record<string, unknown>).madeBy) : undefined;
  const by = found === undefined ? '' : ` (${describeToolVersion(found)})`;
  throw new CliError(
    'CLI_SAVED_PLAN_OTHER_VERSION',
    `${file} was made by an older version of opsman-gitops${by}: it has plan formatVersion ${version}; this is ${describeToolVersion(tool)}, which reads formatVersion ${PLAN_FORMAT_VERSION}; nothing was written: make a new plan with this version (\`plan --out\`)`,
  );
}

/**
 * Checks a saved plan's format and build (`tool` is this build: a plan sealed by another is refused), then its shape
 * with the reconciler's check (checkSavedPlan); the reconciler checks staleness against the state and live state.
 */
export function checkPlanShape(value: unknown, file: string, tool: ToolVersion): Plan {
  if (!isRecord(value)) throw invalid(file, 'not a JSON object');
  const p = value;
  checkOlderFormat(p, file, tool);
  checkMadeBy(p, file, tool);
  const version = p.formatVersion;
  // A later release's plan is not malformed: say so, with both versions, rather than "not a plan saved by plan --out".
  if (typeof version === 'number' && Number.isInteger(version) && version > PLAN_FORMAT_VERSION) {
    throw new CliError(
      'CLI_SAVED_PLAN_INVALID',
      `${file} was saved by a newer version of opsman-gitops: it has formatVersion ${version}; this version reads formatVersion ${PLAN_FORMAT_VERSION}: apply it with the version that saved it, or make a new plan; nothing was written`,
    );
  }
  // The rest is the reconciler's own check (core/saved-plan.ts), made here too so that a malformed plan is refused
  // before the state dir is opened, naming the file; the seal is not part of the plan.
  const { savedFor: _seal, ...plan } = p;
  try {
    checkSavedPlan(plan);
  } catch (error) {
    if (error instanceof SavedPlanInvalidError) throw invalid(file, error.message);
    throw error;
  }
  // Checked member by member just above.
  return value as unknown as Plan;
}

/** The seal of a saved plan: the Ops Manager it was made against, the tool that made it, and a MAC over them and the plan. */
interface PlanSeal {
  /** The Public API root of the plan run: the plan applies to that Ops Manager only. */
  baseUrl: string;
  /** The build of opsman-gitops that made the plan: it applies with that build only. */
  madeBy: ToolVersion;
  /** HMAC-SHA-256 (hex) of the canonical JSON of the plan with `savedFor` (baseUrl, madeBy), under the saved-plan key. */
  mac: string;
}

const SEAL_FIELDS: ReadonlySet<string> = new Set(['baseUrl', 'madeBy', 'mac']);

/**
 * The MAC key of saved plans, derived from the fingerprint key (HMAC-SHA-256 with a label of its own, so no other use
 * of the fingerprint key shares it). The key lives in the state dir (or `OPSMAN_FINGERPRINT_KEY`), which the apply
 * needs anyway: a plan applied with another state is refused instead of being trusted.
 */
export function deriveSavedPlanKey(fingerprintKey: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', fingerprintKey).update('opsman-gitops/saved-plan/v1').digest());
}

function planMac(plan: Plan, baseUrl: string, madeBy: ToolVersion, key: Uint8Array): string {
  // The canonical form of the parsed value, not the file's bytes: what is checked is exactly what is applied (a
  // duplicated key, whose last value JSON.parse keeps, changes the canonical form and so breaks the seal).
  return createHmac('sha256', key)
    .update(
      renderJson({ ...plan, savedFor: { baseUrl, madeBy: { version: madeBy.version, sources: madeBy.sources } } }),
    )
    .digest('hex');
}

/**
 * The text `plan --out` saves: the plan JSON plus `savedFor: {baseUrl, madeBy, mac}`. Nobody can change a change, a
 * digest or a mode, the state version, the version that made it, nor point the plan at another Ops Manager, without
 * `apply --plan` noticing: the reviewer's plan is what runs, with the code that made it.
 */
export function sealedPlanText(plan: Plan, baseUrl: string, fingerprintKey: Uint8Array, madeBy: ToolVersion): string {
  const mac = planMac(plan, baseUrl, madeBy, deriveSavedPlanKey(fingerprintKey));
  const seal: PlanSeal = { baseUrl, madeBy: { version: madeBy.version, sources: madeBy.sources }, mac };
  return renderJson({ ...plan, savedFor: seal });
}

/**
 * Verifies the seal of a plan read by readSavedPlan against the Ops Manager and the fingerprint key of this apply, and
 * returns the plan without it. Refuses (CLI_SAVED_PLAN_INVALID) a plan without a seal, saved for another Ops Manager,
 * or edited (or saved with another state dir's fingerprint key) since.
 */
export function openSealedPlan(
  saved: Plan,
  file: string,
  baseUrl: string,
  fingerprintKey: Uint8Array,
  tool: ToolVersion,
): Plan {
  const { savedFor, ...plan } = saved as Plan & { savedFor?: unknown };
  const seal = savedFor as Partial<PlanSeal> | null | undefined;
  if (typeof seal !== 'object' || seal === null || typeof seal.baseUrl !== 'string' || typeof seal.mac !== 'string') {
    throw invalid(file, 'it has no seal (savedFor); it was not saved by this version of plan --out: make a new plan');
  }
  // Here too, not only in readSavedPlan: an in-process caller may open a plan it did not read from a file.
  checkMadeBy(saved as unknown as Record<string, unknown>, file, tool);
  const extra = Object.keys(seal).filter((k) => !SEAL_FIELDS.has(k));
  if (extra.length > 0) {
    throw invalid(
      file,
      `its seal has ${extra.length === 1 ? 'a field' : 'fields'} this version does not know (${extra
        .sort()
        .map((k) => JSON.stringify(k))
        .join(', ')}); nothing was written: make a new plan`,
    );
  }
  if (seal.baseUrl !== baseUrl) {
    throw new CliError(
      'CLI_SAVED_PLAN_OTHER_OPS_MANAGER',
      `${file} was planned against ${seal.baseUrl}, not ${baseUrl}: a saved plan applies only to the Ops Manager it was made against; nothing was written`,
    );
  }
  const expected = Buffer.from(planMac(plan as Plan, baseUrl, tool, deriveSavedPlanKey(fingerprintKey)), 'hex');
  const found = Buffer.from(/^[0-9a-f]{64}$/.test(seal.mac) ? seal.mac : '', 'hex');
  if (found.length !== expected.length || !timingSafeEqual(found, expected)) {
    throw invalid(
      file,
      'its seal does not match: the file was edited since it was saved, or it was saved with another state dir (fingerprint key); nothing was written: make a new plan',
    );
  }
  return plan as Plan;
}

/**
/**
 * The text of `--plan FILE`. A FIFO, a socket or a device is refused, not read (a FIFO with no writer would hang the
 * run before its first line; /dev/zero would never end), and so is a directory or a file over the size limit.
 */
async function readPlanText(file: string): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await openRegularFile(file);
  } catch (error) {
    if (error instanceof NotRegularFileError) throw invalid(file, error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw invalid(file, 'it is a directory');
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new CliError('CLI_SAVED_PLAN_MISSING', `--plan ${file}: no such file`);
    }
    throw new CliError(
      'CLI_SAVED_PLAN_MISSING',
      `--plan ${file}: cannot be read: ${describeFsCause(file, error, 'read')}`,
    );
  }
  try {
    const info = await handle.stat();
    if (info.size > MAX_SAVED_PLAN_BYTES) throw invalid(file, `larger than ${MAX_SAVED_PLAN_BYTES} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Reads and checks a saved plan file, refusing one made by another build than `tool` (its seal is checked by
 * openSealedPlan, once the state dir's key is loaded).
 */
export async function readSavedPlan(file: string, tool: ToolVersion): Promise<Plan> {
  const text = await readPlanText(file);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // Where, never what: a file passed to --plan by mistake (a secrets file, a key) must not be quoted.
    throw invalid(file, `not JSON${whereJsonBroke(text, error)}`);
  }
  return checkPlanShape(parsed, file, tool);
}
