/**
 * Renders a loaded DesiredState back to YAML documents (Project, Organization, Settings), templates merged in.
 * Loading the rendered text gives the same state again (the round-trip property the tests check); useful to see
 * what a project resolves to after template merge.
 */
import { stringify } from 'yaml';
import type { DesiredAlertConfig, DesiredProject, DesiredState } from '../model.ts';
import { API_VERSION } from './enums.ts';

/** The schema comment that makes editors validate a file (path relative to desired-state/). */
export const SCHEMA_COMMENT = '# yaml-language-server: $schema=./schema/opsman-gitops.schema.json';

function alertConfigDoc(config: DesiredAlertConfig): Record<string, unknown> {
  const {
    key,
    eventTypeName,
    enabled,
    matchers,
    metricThreshold,
    threshold,
    notifications,
    ignoreFields,
    renamedFrom,
  } = config;
  return {
    key,
    eventTypeName,
    enabled,
    ...(matchers.length > 0 ? { matchers } : {}),
    ...(metricThreshold ? { metricThreshold } : {}),
    ...(threshold ? { threshold } : {}),
    notifications,
    ...(ignoreFields ? { ignoreFields } : {}),
    ...(renamedFrom ? { renamedFrom } : {}),
  };
}

function projectDoc(project: DesiredProject): Record<string, unknown> {
  const { name, projectId, orgId, mode, defaultServerType, auditLogRotation, alertConfigs, prune, protect, release } =
    project;
  return {
    apiVersion: API_VERSION,
    kind: 'Project',
    metadata: { name, projectId, ...(orgId ? { orgId } : {}) },
    spec: {
      ...(mode ? { mode } : {}),
      ...(defaultServerType ? { defaultServerType } : {}),
      ...(auditLogRotation ? { auditLogRotation } : {}),
      alertConfigs: alertConfigs.map(alertConfigDoc),
      prune,
      protect,
      ...(release.length > 0 ? { release } : {}),
    },
  };
}

/** The state as one multi-document YAML text. */
export function renderDesiredState(state: DesiredState): string {
  const docs: unknown[] = [];
  const { mode, prune, archive, versionManifest, changeWindows } = state.settings;
  const pin = versionManifest?.pin?.path;
  docs.push({
    apiVersion: API_VERSION,
    kind: 'Settings',
    spec: {
      mode,
      prune,
      archive,
      ...(versionManifest ? { versionManifest: pin ? { pin } : {} } : {}),
      ...(changeWindows ? { changeWindows } : {}),
    },
  });
  for (const org of state.organizations) {
    const { name, orgId, mode: orgMode, defaultServerType } = org;
    docs.push({
      apiVersion: API_VERSION,
      kind: 'Organization',
      metadata: { name, orgId },
      spec: { ...(orgMode ? { mode: orgMode } : {}), ...(defaultServerType ? { defaultServerType } : {}) },
    });
  }
  for (const project of state.projects) docs.push(projectDoc(project));
  const body = docs.map((doc) => stringify(doc, { lineWidth: 0 })).join('---\n');
  return `${SCHEMA_COMMENT}\n${body}`;
}
