/**
 * Where a change's secret references are written, for a secret that fails at apply time (deleted, renamed or
 * unreadable since the plan). The plan holds no positions, and an apply may run in another process than its plan
 * (`apply --plan`), so the desired state is loaded again, once per apply and only when a secret fails, and a place is
 * named only when it is sure to be the plan's: the file it is in has the digest the plan recorded for it
 * (`plan.desired.files`, so the line and column read the same text as at plan time), and the config of that key in
 * that project still writes the same reference at the same notification and field. Anything else is said as not
 * located, with why: never a place that was not checked.
 */
import { type DesiredAlertBody, secretUses } from './alert-body.ts';
import { errorMessage } from './concurrency.ts';
import { deriveCacheAuthKey } from './desired/cache.ts';
import { loadDesiredStateCached } from './desired/index.ts';
import { secretSourceKey } from './desired/secret-places.ts';
import type { Change, DesiredAlertConfig, DesiredState, Plan, SourceLocation } from './model.ts';
import type { DesiredStateCache, DesiredStateSource } from './ports.ts';
import type { SecretPlaces } from './resolve-secrets.ts';

/** Where the references of one change's body are written, as apply can tell (resolveBodySecrets' `locate`). */
export type SecretLocator = (change: Change) => Promise<SecretPlaces>;

/** Why a reference is not located when the files moved on since the plan. */
export const CHANGED_SINCE_PLAN = 'the desired state changed since the plan was made';

/** The desired state as loaded now, indexed for lookups; or why it could not be loaded. */
type Loaded =
  | { ok: true; configs: Map<string, DesiredAlertConfig>; files: Map<string, string> }
  | { ok: false; why: string };

/** The index key of an alert config: project id and key, joined by a character neither can hold usefully. */
function indexKey(projectId: string, key: string): string {
  return `${projectId}\u0000${key}`;
}

function indexed(state: DesiredState): Loaded {
  const configs = new Map<string, DesiredAlertConfig>();
  for (const project of state.projects) {
    for (const config of project.alertConfigs) {
      if (config.secretSources !== undefined) configs.set(indexKey(project.projectId, config.key), config);
    }
  }
  return { ok: true, configs, files: new Map(state.files.map((f) => [f.path, f.sha256])) };
}

/** The sha256 of every file the plan was made from, by path (an edited saved plan's odd member gives none). */
function plannedFiles(plan: Plan): Map<string, string> {
  const files = Array.isArray(plan.desired?.files) ? plan.desired.files : [];
  const out = new Map<string, string>();
  for (const f of files) if (typeof f?.path === 'string' && typeof f.sha256 === 'string') out.set(f.path, f.sha256);
  return out;
}

/** The `secretRef` the config writes at notification `index`, field `field`, or undefined. */
function refAt(config: DesiredAlertConfig, index: number, field: string): unknown {
  const notification = config.notifications[index] as Record<string, unknown> | undefined;
  const value = notification?.[field];
  return typeof value === 'object' && value !== null ? (value as { secretRef?: unknown }).secretRef : undefined;
}

/**
 * A locator for the changes of `plan`: `load` is called once, the first time a change asks (a run whose secrets all
 * resolve never loads anything). It answers the places it could check, and for the rest why they are not located.
 */
export function secretLocator(plan: Plan, load: () => Promise<DesiredState>): SecretLocator {
  let loaded: Promise<Loaded> | undefined;
  let planned: Map<string, string> | undefined;
  return async (change) => {
    loaded ??= load().then(indexed, (error: unknown) => ({
      ok: false,
      why: `the desired state could not be loaded to locate it: ${errorMessage(error)}`,
    }));
    const now = await loaded;
    if (!now.ok) return { notLocated: now.why };
    planned ??= plannedFiles(plan);
    const config = now.configs.get(indexKey(change.target.id, change.key));
    const sources: Record<string, SourceLocation> = {};
    if (config !== undefined && change.target.type === 'project' && change.after !== undefined) {
      for (const use of secretUses(change.after as DesiredAlertBody)) {
        const key = secretSourceKey(use.index, use.field);
        const at = config.secretSources?.[key];
        if (at === undefined || refAt(config, use.index, use.field) !== use.ref) continue;
        const sha = planned.get(at.file);
        if (sha !== undefined && now.files.get(at.file) === sha) sources[key] = at;
      }
    }
    return { sources, notLocated: CHANGED_SINCE_PLAN };
  };
}

/** What loading the desired state again needs: the run's source, its cache and the key the cache is sealed with. */
export interface PlacesSource {
  source: DesiredStateSource;
  desiredCache?: DesiredStateCache;
  fingerprintKey: Uint8Array;
}

/**
 * Loads the desired state as a run does (through the desired-state cache when there is one), for its secret places
 * only: no snapshot check (a file's digest is compared instead) and nothing reported. Throws when it is invalid.
 */
export async function loadForPlaces(deps: PlacesSource): Promise<DesiredState> {
  const authKey = deps.desiredCache ? deriveCacheAuthKey(deps.fingerprintKey) : undefined;
  const { result, sourceError } = await loadDesiredStateCached(deps.source, {}, deps.desiredCache, authKey);
  if (result.ok) return result.state;
  if (sourceError !== undefined) throw sourceError;
  throw new Error(`it has ${result.issues.length} problem(s); run validate`);
}
