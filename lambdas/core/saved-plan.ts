/**
 * Saved plans: `apply --plan FILE` applies a plan made earlier, after checking that the state it was made against is
 * still the stored one (same state version) and that the live state of every target it covers is still what the plan
 * was made from (same live digests). Otherwise the plan is refused.
 */
import { isRecord } from '../../shared/is-record.ts';
import { errorMessage } from './concurrency.ts';
import { SavedPlanInvalidError, SavedPlanStaleError, SavedPlanStateChangedError } from './errors.ts';
import { ACTION_ORDER, MODES, PLAN_FIELDS, PLAN_FORMAT_VERSION, type Plan, targetKey } from './model.ts';
import { isWrite } from './modes.ts';
import type { OpsManagerApi } from './ports.ts';
import {
  globalLiveDigest,
  orgLiveDigest,
  type ProjectComponent,
  projectLiveDigest,
  readGlobalLive,
  readProjectLive,
} from './read-live.ts';
import { CHANGE_KINDS, desiredProblem, driftProblem, planMembersProblem, targetProblem } from './saved-plan-members.ts';
import { fieldsProblem, valuesProblem } from './saved-plan-values.ts';

const ACTIONS: ReadonlySet<string> = new Set(ACTION_ORDER);
/** Alert-config actions that address an existing object by id. */
const NEEDS_ID: ReadonlySet<string> = new Set(['update', 'enable', 'disable', 'delete', 'adopt']);
/**
 * Actions that may carry a renamed key's `movedFrom`: an implicit rename adopts, a declared one also writes; a target in
 * observe mode reports either as a drift (never applied), which keeps it, so a plan saved there still loads.
 */
const MOVES: ReadonlySet<string> = new Set(['adopt', 'update', 'enable', 'disable', 'drift']);

/**
 * What is wrong with one change of a saved plan, or undefined: every member the apply and the renderers read, with
 * its type, so that an edited or truncated file is refused by name instead of failing half-way with a TypeError
 * (the CLI's seal refuses edited files first; an in-process caller's plan, or one re-sealed by hand with the state
 * dir's key, gets the same check).
 */
function changeProblem(c: unknown): string | undefined {
  if (!isRecord(c)) return 'not an object';
  const target = targetProblem(c.target, 'target');
  if (target !== undefined) return target;
  if (typeof c.kind !== 'string' || !CHANGE_KINDS.has(c.kind)) return `unknown kind ${JSON.stringify(c.kind)}`;
  if (typeof c.key !== 'string') return 'key is not a string';
  if (typeof c.action !== 'string' || !ACTIONS.has(c.action)) return `unknown action ${JSON.stringify(c.action)}`;
  const fields = fieldsProblem(c.fields);
  if (fields !== undefined) return fields;
  if (typeof c.reason !== 'string') return 'reason is not a string';
  if (c.id !== undefined && typeof c.id !== 'string') return 'id is not a string';
  if (c.movedFrom !== undefined && (typeof c.movedFrom !== 'string' || !MOVES.has(c.action))) {
    return 'movedFrom is allowed on an adopt, update, enable, disable or drift only, as a string';
  }
  const template = c.template === undefined ? undefined : templateProblem(c.template, c.kind);
  if (template !== undefined) return template;
  if (c.kind === 'alertConfig' && NEEDS_ID.has(c.action) && typeof c.id !== 'string')
    return `${c.action} without an id`;
  return valuesProblem(c) ?? driftProblem(c.drift);
}

/** What is wrong with a change's `template` (the renderers print its members), or undefined. */
function templateProblem(t: unknown, kind: unknown): string | undefined {
  if (kind !== 'alertConfig') return 'template is allowed on an alertConfig change only';
  if (!isRecord(t) || typeof t.name !== 'string' || typeof t.file !== 'string') {
    return 'template is not an object with a name and a file';
  }
  if (typeof t.line !== 'number' || !Number.isInteger(t.line) || t.line < 1)
    return 'template.line is not a line number';
  return undefined;
}

const KNOWN_FIELDS: ReadonlySet<string> = new Set(PLAN_FIELDS);

/**
 * The top-level members of a saved plan that this version does not write, sorted (quoted as JSON strings: they came
 * from a file). Such a member means another version wrote the plan, and this one would apply it with the member
 * ignored: whatever it meant to that version (a condition, a limit) would silently not hold.
 */
export function unknownPlanFields(plan: Record<string, unknown>, also: readonly string[] = []): string[] {
  return Object.keys(plan)
    .filter((k) => !KNOWN_FIELDS.has(k) && !also.includes(k))
    .sort()
    .map((k) => JSON.stringify(k));
}

/** Checks the shape of a plan read from a file (it came from outside: never trusted). */
export function checkSavedPlan(plan: unknown): Plan {
  const p = plan as Partial<Plan> | null;
  if (p === null || typeof p !== 'object') throw new SavedPlanInvalidError('the saved plan is not a JSON object');
  const version: unknown = p.formatVersion;
  if (typeof version === 'number' && Number.isInteger(version) && version > PLAN_FORMAT_VERSION) {
    throw new SavedPlanInvalidError(
      `the saved plan was made by a newer version of opsman-gitops: it has formatVersion ${version}; this version reads formatVersion ${PLAN_FORMAT_VERSION}: apply it with that version, or make a new plan`,
    );
  }
  // An earlier format (a plan saved before an upgrade): this version does not know what it meant; only a new plan helps.
  if (typeof version === 'number' && Number.isInteger(version) && version >= 1 && version < PLAN_FORMAT_VERSION) {
    throw new SavedPlanInvalidError(
      `the saved plan was made by an older version of opsman-gitops: it has formatVersion ${version}; this version reads formatVersion ${PLAN_FORMAT_VERSION}: make a new plan`,
    );
  }
  if (version === undefined) {
    // Any other JSON object (`{}`, a drift report, a package.json): "formatVersion undefined" read as a bug of ours.
    throw new SavedPlanInvalidError(`the saved plan has no formatVersion (expected ${PLAN_FORMAT_VERSION})`);
  }
  if (version !== PLAN_FORMAT_VERSION)
    throw new SavedPlanInvalidError(
      `the saved plan has formatVersion ${JSON.stringify(version)}; expected ${PLAN_FORMAT_VERSION}`,
    );
  const unknown = unknownPlanFields(p as Record<string, unknown>);
  if (unknown.length > 0) {
    throw new SavedPlanInvalidError(
      `the saved plan has ${unknown.length === 1 ? 'a field' : 'fields'} this version does not know (${unknown.join(', ')}): it was made by another version of opsman-gitops; make a new plan`,
    );
  }
  if (typeof p.runId !== 'string') throw new SavedPlanInvalidError('the saved plan has no runId');
  if (typeof p.createdAt !== 'string') throw new SavedPlanInvalidError('the saved plan has no createdAt');
  if (typeof p.mode !== 'string' || !MODES.includes(p.mode)) {
    // Quoted as JSON, cut short: the value came from a file.
    const found = p.mode === undefined ? 'it is missing' : `found ${JSON.stringify(p.mode)?.slice(0, 80)}`;
    throw new SavedPlanInvalidError(`the saved plan's mode must be one of ${MODES.join(', ')}; ${found}`);
  }
  const desired = desiredProblem(p.desired);
  if (desired !== undefined) throw new SavedPlanInvalidError(`the saved plan has a malformed member (${desired})`);
  if (!Array.isArray(p.changes)) throw new SavedPlanInvalidError('the saved plan has no changes list');
  if (!Array.isArray(p.failures)) throw new SavedPlanInvalidError('the saved plan has no failures list');
  if (!isRecord(p.liveDigests)) throw new SavedPlanInvalidError('the saved plan has no liveDigests');
  const members = planMembersProblem(p as Record<string, unknown>);
  if (members !== undefined) throw new SavedPlanInvalidError(`the saved plan has a malformed member (${members})`);
  p.changes.forEach((c: unknown, i) => {
    const problem = changeProblem(c);
    if (problem !== undefined) {
      throw new SavedPlanInvalidError(`the saved plan has a malformed change (changes[${i}]: ${problem})`);
    }
  });
  // Freshness is checked per target in liveDigests: a write to a target missing there would never be re-read. A plan
  // made by this tool always carries the digest of every target it writes (a target that could not be read has none,
  // and no change either), so only an edited or truncated file fails here.
  const uncovered = new Set<string>();
  for (const c of p.changes) {
    const key = targetKey(c.target);
    if (isWrite(c) && typeof p.liveDigests[key] !== 'string') {
      uncovered.add(typeof c.target.name === 'string' ? `${c.target.name} (${key})` : key);
    }
  }
  if (uncovered.size > 0) {
    throw new SavedPlanInvalidError(
      `the saved plan writes to ${[...uncovered].sort().join(', ')} but has no live digest for it, so its freshness cannot be checked; make a new plan`,
    );
  }
  // Without it, a run that wrote the state since the plan was made (recorded a create, pruned) would go unseen.
  if (p.stateVersion === undefined) {
    throw new SavedPlanInvalidError(
      'the saved plan does not record the state version it was made against (it was made by an earlier version of opsman-gitops); make a new plan',
    );
  }
  if (p.stateVersion !== null && typeof p.stateVersion !== 'string')
    throw new SavedPlanInvalidError('the saved plan has a stateVersion that is neither a string nor null');
  return p as Plan;
}

/**
 * Throws SavedPlanStateChangedError unless the state held now (read under the apply's lease, before any write) is the
 * version the plan was made against. A plan records ownership decisions (what to adopt, create, prune) made from that
 * state; once another run wrote it, they may be wrong even where Ops Manager looks unchanged, as Terraform refuses a
 * saved plan whose state changed. `lastRun` (of the state held now) names who wrote it, when known.
 */
export function assertStateUnchanged(
  plan: Plan,
  held: { version: string | null; lastRun?: { runId: string; finishedAt: string } },
): void {
  const planned = plan.stateVersion ?? null;
  if (plan.stateVersion !== undefined && planned === held.version) return;
  throw new SavedPlanStateChangedError(planned, held.version, held.lastRun);
}

async function currentDigest(api: OpsManagerApi, key: string, reads: string[] | undefined): Promise<string> {
  const at = key.indexOf(':');
  const type = key.slice(0, at);
  const id = key.slice(at + 1);
  if (type === 'project') {
    return projectLiveDigest(await readProjectLive(api, id, (reads ?? ['alertConfigs']) as ProjectComponent[]));
  }
  if (type === 'organization') return orgLiveDigest(await api.getOrgDefaultServerType(id));
  return globalLiveDigest(await readGlobalLive(api));
}

/** Throws SavedPlanStaleError naming every target whose live state moved (or could not be re-read). */
export async function assertPlanFresh(plan: Plan, api: OpsManagerApi): Promise<void> {
  const names = new Map(plan.changes.map((c) => [`${c.target.type}:${c.target.id}`, c.target.name]));
  const stale: { key: string; label: string }[] = [];
  await Promise.all(
    Object.entries(plan.liveDigests).map(async ([key, digest]) => {
      try {
        const now = await currentDigest(api, key, plan.liveReads?.[key]);
        if (now === digest) return;
        stale.push({ key, label: `${names.get(key) ?? key} (${key})` });
      } catch (error) {
        stale.push({ key, label: `${names.get(key) ?? key} (${key}: could not re-read: ${errorMessage(error)})` });
      }
    }),
  );
  if (stale.length === 0) return;
  // In key order whichever re-read finished first, each label beside its key (labels[i] names targets[i]).
  stale.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  throw new SavedPlanStaleError(
    stale.map((s) => s.key),
    stale.map((s) => s.label),
  );
}
