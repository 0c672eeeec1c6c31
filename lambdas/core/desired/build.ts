/**
 * Builds the DesiredState from documents that passed every check: defaults applied (enabled true, prune false,
 * Settings from DEFAULT_SETTINGS), templates merged, `role` normalised to `roles`, and the file digests.
 */
import { createHash } from 'node:crypto';
import {
  type ChangeWindow,
  DEFAULT_SETTINGS,
  DEFAULT_WINDOW_TIME_ZONE,
  type DesiredAlertConfig,
  type DesiredFileInfo,
  type DesiredNotification,
  type DesiredOrganization,
  type DesiredProject,
  type DesiredState,
  type Settings,
  type SourceLocation,
} from '../model.ts';
import { byPath } from '../order.ts';
import type { DocumentsByKind } from './cross-checks.ts';
import { asArray, asRecord } from './issue.ts';
import { locate, type PathSegment } from './locate.ts';
import type { PinnedManifest } from './manifest-pin.ts';
import { type MergedEntry, mergeProject, templateName } from './merge.ts';
import type { ParsedDocument } from './parse.ts';
import { secretPlaces, secretSourceKey } from './secret-places.ts';

type Doc = Record<string, Record<string, unknown>>;

function sourceOf(document: ParsedDocument, path: PathSegment[]): SourceLocation {
  return { file: document.file, ...locate(document, path) };
}

function notificationOf(raw: unknown): DesiredNotification {
  const { role, ...rest } = raw as Record<string, unknown>;
  return (role === undefined ? rest : { ...rest, roles: [role] }) as unknown as DesiredNotification;
}

/** Where the entry's secret references are written (known positions: no re-parse), or undefined when it has none. */
function secretSourcesOf(entry: MergedEntry): Record<string, SourceLocation> | undefined {
  let sources: Record<string, SourceLocation> | undefined;
  for (const place of secretPlaces({ spec: { alertConfigs: [entry.value] } })) {
    sources ??= {};
    const path = [...entry.path, ...place.path.slice(3)];
    sources[secretSourceKey(place.notification, place.field)] = sourceOf(entry.document, path);
  }
  return sources;
}

function alertConfigOf(entry: MergedEntry): DesiredAlertConfig {
  const v = entry.value;
  const config: DesiredAlertConfig = {
    key: entry.key,
    eventTypeName: v.eventTypeName as string,
    enabled: v.enabled === undefined ? true : (v.enabled as boolean),
    matchers: (v.matchers as DesiredAlertConfig['matchers'] | undefined) ?? [],
    notifications: (v.notifications as unknown[]).map(notificationOf),
    source: sourceOf(entry.document, entry.path),
  };
  if (v.metricThreshold !== undefined)
    config.metricThreshold = v.metricThreshold as DesiredAlertConfig['metricThreshold'];
  if (v.threshold !== undefined) config.threshold = v.threshold as DesiredAlertConfig['threshold'];
  // An empty list ignores nothing: left out, so the config loads (and plans) as one without it.
  const ignore = v.ignoreFields as DesiredAlertConfig['ignoreFields'] | undefined;
  if (ignore !== undefined && ignore.length > 0) config.ignoreFields = ignore;
  const renamedFrom = v.renamedFrom as string[] | undefined;
  if (renamedFrom !== undefined) config.renamedFrom = renamedFrom;
  if (entry.template !== undefined) config.template = entry.template;
  const secretSources = secretSourcesOf(entry);
  if (secretSources !== undefined) config.secretSources = secretSources;
  return config;
}

function projectOf(document: ParsedDocument, templates: Map<string, ParsedDocument>): DesiredProject {
  const { metadata = {}, spec = {} } = document.value as Doc;
  const project: DesiredProject = {
    name: metadata.name as string,
    projectId: metadata.projectId as string,
    alertConfigs: mergeProject(document, templates).entries.map(alertConfigOf),
    prune: (spec.prune as boolean | undefined) ?? false,
    protect: (spec.protect as string[] | undefined) ?? [],
    release: (spec.release as string[] | undefined) ?? [],
    source: sourceOf(document, []),
  };
  if (metadata.orgId !== undefined) project.orgId = metadata.orgId as string;
  if (spec.mode !== undefined) project.mode = spec.mode as DesiredProject['mode'];
  if (spec.defaultServerType !== undefined)
    project.defaultServerType = spec.defaultServerType as DesiredProject['defaultServerType'];
  const rotation = asRecord(spec.auditLogRotation);
  if (rotation) project.auditLogRotation = { enforce: false, ...rotation } as DesiredProject['auditLogRotation'];
  return project;
}

function organizationOf(document: ParsedDocument): DesiredOrganization {
  const { metadata = {}, spec = {} } = document.value as Doc;
  const org: DesiredOrganization = {
    name: metadata.name as string,
    orgId: metadata.orgId as string,
    source: sourceOf(document, []),
  };
  if (spec.mode !== undefined) org.mode = spec.mode as DesiredOrganization['mode'];
  if (spec.defaultServerType !== undefined)
    org.defaultServerType = spec.defaultServerType as DesiredOrganization['defaultServerType'];
  return org;
}

function settingsOf(document: ParsedDocument | undefined, pin: PinnedManifest | undefined): Settings {
  const spec = (asRecord(asRecord(document?.value)?.spec) ?? {}) as Doc;
  const settings: Settings = {
    mode: (spec.mode as unknown as Settings['mode'] | undefined) ?? DEFAULT_SETTINGS.mode,
    prune: { ...DEFAULT_SETTINGS.prune, ...spec.prune },
    archive: { ...DEFAULT_SETTINGS.archive, ...spec.archive },
  };
  if (spec.versionManifest)
    settings.versionManifest = pin ? { pin: { path: pin.path, text: pin.text, sha256: pin.sha256 } } : {};
  const windows = asArray(spec.changeWindows).map(windowOf);
  if (windows.length > 0) settings.changeWindows = windows;
  return settings;
}

/** A validated change window, members in a fixed order; a weekly one gets its time zone (default Etc/UTC). */
function windowOf(value: unknown): ChangeWindow {
  const w = asRecord(value) ?? {};
  const window: ChangeWindow = { name: String(w.name), kind: w.kind === 'allow' ? 'allow' : 'deny' };
  if (w.from !== undefined) window.from = String(w.from);
  if (w.until !== undefined) window.until = String(w.until);
  if (w.days !== undefined) window.days = asArray(w.days) as ChangeWindow['days'];
  if (w.start !== undefined) window.start = String(w.start);
  if (w.end !== undefined) window.end = String(w.end);
  if (w.days !== undefined) window.timeZone = w.timeZone === undefined ? DEFAULT_WINDOW_TIME_ZONE : String(w.timeZone);
  if (w.projects !== undefined) window.projects = asArray(w.projects).map(String);
  return window;
}

/** sha256 over the sorted `path sha256` lines of the files: the desired-state revision. */
export function digestOf(files: DesiredFileInfo[]): string {
  const lines = [...files].sort(byPath).map((f) => `${f.path}\u0000${f.sha256}\n`);
  return createHash('sha256').update(lines.join('')).digest('hex');
}

/** Builds the state of documents that passed every check. */
export function buildState(
  docs: DocumentsByKind,
  files: DesiredFileInfo[],
  pin: PinnedManifest | undefined,
): DesiredState {
  const templates = new Map<string, ParsedDocument>();
  for (const template of docs.AlertTemplate) templates.set(templateName(template) as string, template);
  const all = pin
    ? [...files, { path: pin.path, sha256: pin.sha256, ...(pin.version ? { version: pin.version } : {}) }]
    : files;
  const sorted = [...all].sort(byPath);
  return {
    projects: docs.Project.map((document) => projectOf(document, templates)),
    organizations: docs.Organization.map(organizationOf),
    settings: settingsOf(docs.Settings[0], pin),
    files: sorted,
    digest: digestOf(sorted),
  };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `loaded 4 projects, 2 organizations, 2 templates, 23 alert configs from 5 files`. */
export function summarize(state: DesiredState, templates: number, yamlFiles: number): string {
  const alerts = state.projects.reduce((sum, project) => sum + project.alertConfigs.length, 0);
  return `loaded ${count(state.projects.length, 'project', 'projects')}, ${count(state.organizations.length, 'organization', 'organizations')}, ${count(templates, 'template', 'templates')}, ${count(alerts, 'alert config', 'alert configs')} from ${count(yamlFiles, 'file', 'files')}`;
}
