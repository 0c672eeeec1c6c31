/**
 * `export` for one project: live alert configs and singletons in, the Project YAML out. Every entry goes through the
 * real loader before it is written (memory-source.ts): a config the format cannot express (an event type outside the
 * known list, a field the loader refuses, a team that does not exist) is skipped with the reason, never dropped in
 * silence, and the text returned always loads, each entry reading back as exactly its live config (export-verify.ts).
 */
import type { AlertConfig } from '../../opsman/types.ts';
import { EVENT_TYPE_NAMES } from '../desired/enums.ts';
import { loadDesiredState } from '../desired/load.ts';
import type { ValidationIssue } from '../desired/types.ts';
import { ReconcileError } from '../errors.ts';
import type { OpsManagerApi } from '../ports.ts';
import { checkTeams } from '../team-check.ts';
import { creationOrder } from '../timestamp.ts';
import { unmodelledMembers } from '../unmodelled.ts';
import { exportAlertConfig } from './export-alert.ts';
import { exportKeys } from './export-keys.ts';
import {
  type LiveSingletons,
  projectDocument,
  projectYaml,
  type SpecSingletons,
  specSingletons,
} from './export-project.ts';
import { roundTripProblem } from './export-verify.ts';
import { MemoryDesiredSource } from './memory-source.ts';

/** What was read of one project. */
export interface ProjectLiveRead {
  projectId: string;
  alertConfigs: AlertConfig[];
  singletons: LiveSingletons;
}

/** A live alert config left out of the export, and why. */
export interface SkippedConfig {
  id: string;
  key: string;
  reason: string;
}

/** A live alert config the export holds: its key in the YAML and its Ops Manager id. */
export interface ExportedConfig {
  key: string;
  id: string;
}

/** The export of one project. */
export interface ProjectExport {
  projectId: string;
  /** The Project document as YAML; it passes the loader. */
  text: string;
  /** The alert configs the text holds, in the text's order. */
  configs: ExportedConfig[];
  skipped: SkippedConfig[];
  /** Singletons left out, and other things the user should know. */
  warnings: string[];
  /** Every secret reference in the text, in order: the secrets to create before `plan`. */
  secretRefs: string[];
}

/** Options of an export. */
export interface ExportOptions {
  /** The project's organization: needed for alert configs that notify a TEAM (`metadata.orgId`). */
  orgId?: string;
  /** Where the teams those configs name are looked up, when `orgId` is given. */
  api?: OpsManagerApi;
}

interface Candidate {
  /** The live config the entry was made from (checked against what the entry loads back as). */
  live: AlertConfig;
  id: string;
  key: string;
  entry: Record<string, unknown>;
  secretRefs: string[];
  notifiesTeam: boolean;
}

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_TYPE_NAMES);
const FILE = 'export.yaml';

/**
 * True when a config notifies a TEAM. A listed config may have no `notifications` member (or null): the live-shape check
 * lets that through, as normalisation reads it as an empty list, so this must too.
 */
function notifiesTeam(config: AlertConfig): boolean {
  return (config.notifications ?? []).some((n) => n.typeName === 'TEAM');
}

/** Why a config cannot be exported before the loader sees it; undefined when it can be tried. */
function upfrontProblem(config: AlertConfig, orgId: string | undefined): string | undefined {
  if (!KNOWN_EVENT_TYPES.has(config.eventTypeName)) {
    return `event type ${JSON.stringify(config.eventTypeName)} is not one of the ${KNOWN_EVENT_TYPES.size} event types the desired state knows`;
  }
  if (orgId === undefined && notifiesTeam(config)) {
    return "it notifies a TEAM, which needs metadata.orgId, and Ops Manager's API does not say a project's organization: export again with the organization id (--org)";
  }
  return undefined;
}

/**
 * A loader issue's message as said of a live value: without its `did you mean` hint. The value is what Ops Manager holds
 * (a newer release's units or event type), not a typo, and taking the nearest known name would make another alert.
 */
function liveMessage(issue: ValidationIssue): string {
  const { message, hint } = issue;
  if (hint === undefined || !hint.startsWith('did you mean ') || !message.endsWith(`; ${hint}`)) return message;
  return message.slice(0, message.length - hint.length - 2);
}

/** `spec.alertConfigs[3].notifications[0]: missing x` -> `notifications[0]: missing x` (the config is named apart). */
function reasonOf(message: string, index: number): string {
  const at = `spec.alertConfigs[${index}]`;
  return message.split(`${at}.`).join('').split(`${at}: `).join('').split(at).join('the config');
}

/**
 * Throws LIVE_MALFORMED when the list names one id twice. Keys are given per id, so two configs of one id would share a
 * key; and a repeat is what a list that changed while it was paged looks like, which may also have left a config out.
 */
function refuseRepeatedIds(projectId: string, configs: readonly AlertConfig[]): void {
  const seen = new Set<string>();
  for (const { id } of configs) {
    if (seen.has(id)) {
      throw new ReconcileError(
        'LIVE_MALFORMED',
        `GET /groups/${projectId}/alertConfigs listed alert config ${id} twice (a list that changed while it was read gives that, and may also leave a config out): export again`,
      );
    }
    seen.add(id);
  }
}

/**
 * Exports one project. Throws ReconcileError LIVE_MALFORMED for a list that repeats an id, EXPORT_INVALID if the text
 * cannot be made to load (a bug, not input).
 */
export async function exportProject(read: ProjectLiveRead, options: ExportOptions = {}): Promise<ProjectExport> {
  const { projectId, alertConfigs } = read;
  refuseRepeatedIds(projectId, alertConfigs);
  const keys = exportKeys(alertConfigs);
  const skipped: SkippedConfig[] = [];
  let candidates: Candidate[] = [];
  for (const config of [...alertConfigs].sort(creationOrder)) {
    const key = keys.get(config.id) as string;
    const problem = upfrontProblem(config, options.orgId);
    if (problem !== undefined) {
      skipped.push({ id: config.id, key, reason: problem });
      continue;
    }
    const exported = exportAlertConfig(config, key, projectId);
    candidates.push({ live: config, id: config.id, key, ...exported, notifiesTeam: notifiesTeam(config) });
  }
  const { singletons, problems } = specSingletons(read.singletons);
  const warnings = [...problems];
  let teamsChecked = false;
  // Each round removes at least one entry or singleton, or returns: it ends.
  for (;;) {
    const document = projectDocument(
      projectId,
      options.orgId,
      singletons,
      candidates.map((c) => c.entry),
    );
    const text = projectYaml(document, projectId);
    const result = await loadDesiredState(new MemoryDesiredSource({ [FILE]: text }));
    if (!result.ok) {
      const refused = new Map<number, string>();
      for (const issue of result.issues) {
        const index = /^spec\.alertConfigs\[(\d+)\]/.exec(issue.path)?.[1];
        if (index !== undefined && candidates[Number(index)] !== undefined) {
          if (!refused.has(Number(index))) refused.set(Number(index), reasonOf(liveMessage(issue), Number(index)));
          continue;
        }
        const singleton = (['defaultServerType', 'auditLogRotation'] as const).find((s) =>
          issue.path.startsWith(`spec.${s}`),
        );
        if (singleton === undefined || singletons[singleton] === undefined) {
          throw new ReconcileError(
            'EXPORT_INVALID',
            `the YAML exported for project ${projectId} does not load: ${issue.message}`,
          );
        }
        delete (singletons as SpecSingletons)[singleton];
        warnings.push(`${singleton} not exported: ${liveMessage(issue)}`);
      }
      for (const [index, reason] of refused) {
        const c = candidates[index] as Candidate;
        skipped.push({ id: c.id, key: c.key, reason });
      }
      candidates = candidates.filter((_, i) => !refused.has(i));
      continue;
    }
    const project = result.state.projects[0];
    const loadedByKey = new Map((project?.alertConfigs ?? []).map((c) => [c.key, c]));
    const unfaithful = new Map<string, string>();
    for (const c of candidates) {
      const loaded = loadedByKey.get(c.key);
      const problem = loaded === undefined ? 'its entry did not load' : roundTripProblem(c.live, loaded);
      if (problem !== undefined) unfaithful.set(c.key, problem);
    }
    if (unfaithful.size > 0) {
      for (const c of candidates) {
        const reason = unfaithful.get(c.key);
        if (reason !== undefined) skipped.push({ id: c.id, key: c.key, reason });
      }
      candidates = candidates.filter((c) => !unfaithful.has(c.key));
      continue;
    }
    if (!teamsChecked && options.orgId !== undefined && options.api !== undefined && project !== undefined) {
      teamsChecked = true;
      if (candidates.some((c) => c.notifiesTeam)) {
        const teamProblems = await checkTeams(project, options.api, new Map());
        if (teamProblems.size > 0) {
          for (const c of candidates) {
            const problem = teamProblems.get(c.key);
            if (problem !== undefined) skipped.push({ id: c.id, key: c.key, reason: problem });
          }
          candidates = candidates.filter((c) => !teamProblems.has(c.key));
          continue;
        }
      }
    }
    // A newer Ops Manager's members have no place in the format: the entry adopts the config all the same (they are not
    // compared), and whoever exports is told what git will not hold.
    for (const c of candidates) {
      const unsent = unmodelledMembers(c.live);
      if (unsent.length > 0) {
        warnings.push(
          `alert config ${c.id} (${c.key}): ${unsent.map((f) => f.path).join(', ')} not exported: this version does not model ${unsent.length === 1 ? 'it' : 'them'} (an update of the config, a full PUT, will not send ${unsent.length === 1 ? 'it' : 'them'})`,
        );
      }
    }
    return {
      projectId,
      text,
      configs: candidates.map((c) => ({ key: c.key, id: c.id })),
      skipped: skipped.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
      warnings,
      secretRefs: candidates.flatMap((c) => c.secretRefs),
    };
  }
}
