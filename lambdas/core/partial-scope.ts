/**
 * What a plan limited to some projects (`--project`, the manual event's "projects") says about its scope: a note that
 * it is partial (what was not planned, so "no changes" is not read as "all in sync", as Terraform's "resource
 * targeting is in effect"), and a warning for each alert config moving between a project in the run and one outside
 * it, whose other half (the create, or the delete of the old copy) this run does not make.
 */
import type { Change, DesiredProject, DesiredState } from './model.ts';
import type { ReconcileState } from './ports.ts';

/** Most projects a scope notice names; the rest are counted. */
const LISTED = 5;

function listed(names: readonly string[]): string {
  const more = names.length - LISTED;
  return `${names.slice(0, LISTED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The notes and warnings of a plan limited to `only` (the selected project ids; `field`: what the caller calls the
 * selection). `changes`: the plan's, after the safety gates (a delete they blocked is no delete this run).
 */
export function partialScopeNotices(
  desired: DesiredState,
  only: ReadonlySet<string>,
  field: string,
  state: ReconcileState | null,
  changes: readonly Change[],
): { notes: string[]; warnings: string[] } {
  const inRun = desired.projects.filter((p) => only.has(p.projectId));
  const outside = desired.projects.filter((p) => !only.has(p.projectId));
  const skipped = [
    ...(outside.length > 0
      ? [`${plural(outside.length, 'other project')} (${listed(outside.map((p) => p.name))})`]
      : []),
    ...(desired.organizations.length > 0 ? [plural(desired.organizations.length, 'organization')] : []),
    ...(desired.settings.versionManifest?.pin !== undefined ? ['the pinned version manifest'] : []),
  ];
  const notes = [
    `this run covers only ${plural(inRun.length, 'project')} of ${desired.projects.length} (${field})${
      skipped.length === 0
        ? ''
        : `; not planned: ${skipped.join(', ')}. Their changes and drift are not shown, and nothing of theirs is written or forgotten`
    }`,
  ];
  const warnings: string[] = [];
  const owns = (projectId: string, key: string) => state?.projects[projectId]?.alertConfigs[key]?.id !== undefined;
  // Per key, the projects outside the run that would create it (desired, not owned) and those whose prune would delete
  // their copy (owned, left their file, neither released nor protected): indexed once, as a run may leave out
  // thousands of projects and make thousands of changes.
  const toCreate = new Map<string, DesiredProject[]>();
  const toDelete = new Map<string, DesiredProject[]>();
  const add = (index: Map<string, DesiredProject[]>, key: string, p: DesiredProject) =>
    index.set(key, [...(index.get(key) ?? []), p]);
  for (const p of outside) {
    const keys = new Set(p.alertConfigs.map((a) => a.key));
    for (const key of keys) if (!owns(p.projectId, key)) add(toCreate, key, p);
    if (!p.prune) continue;
    for (const key of Object.keys(state?.projects[p.projectId]?.alertConfigs ?? {})) {
      if (owns(p.projectId, key) && !keys.has(key) && !p.release.includes(key) && !p.protect.includes(key))
        add(toDelete, key, p);
    }
  }
  const named = (ps: readonly DesiredProject[]) => listed(ps.map((p) => `${p.name} (${p.projectId})`));
  for (const c of changes) {
    if (c.kind !== 'alertConfig') continue;
    // The delete half in the run: the key is desired in a project outside it that does not own it yet (its create).
    const to = c.action === 'delete' ? toCreate.get(c.key) : undefined;
    if (to !== undefined) {
      warnings.push(
        `alert config "${c.key}" is deleted from project ${c.target.name} and desired in ${named(to)}, which this run does not cover (${field}): until a run covers ${to.length === 1 ? 'it' : 'them'}, the config is in neither; add ${to.length === 1 ? 'that project' : 'those projects'} to the run to move it in one apply`,
      );
    }
    // The create half in the run: a project outside it owns the key, which left its file, and would delete its copy.
    const from = c.action === 'create' || c.action === 'adopt' ? toDelete.get(c.key) : undefined;
    if (from !== undefined) {
      warnings.push(
        `alert config "${c.key}" is written to project ${c.target.name} while ${named(from)}, which this run does not cover (${field}), still ${from.length === 1 ? 'owns' : 'own'} the copy that left ${from.length === 1 ? 'its file' : 'their files'}: both alert until a run covering ${from.length === 1 ? 'it' : 'them'} deletes it; add ${from.length === 1 ? 'that project' : 'those projects'} to the run to move it in one apply`,
      );
    }
  }
  return { notes, warnings };
}
