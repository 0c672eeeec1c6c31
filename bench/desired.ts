/**
 * Renders the desired state of a benchmark world: YAML documents as users write them (a Settings document, the
 * shared AlertTemplate, one Organization per org, one file per project), and the matching local secrets file.
 */
import { stringify } from 'yaml';
import type { World, WorldProject } from './world.ts';

/** One file of the rendered desired state: path relative to the root, and its text. */
export interface RenderedFile {
  path: string;
  text: string;
}

const API_VERSION = 'opsman-gitops/v1';
const TEMPLATE_NAME = 'baseline';

function doc(kind: string, metadata: Record<string, unknown> | undefined, spec: Record<string, unknown>): string {
  const value: Record<string, unknown> = { apiVersion: API_VERSION, kind };
  if (metadata) value.metadata = metadata;
  value.spec = spec;
  return stringify(value, { lineWidth: 0 });
}

function projectDoc(world: World, project: WorldProject): string {
  const own = project.alerts.filter((a) => !a.template).map((a) => ({ key: a.key, ...a.body }));
  const spec: Record<string, unknown> = {
    defaultServerType: project.serverType,
    auditLogRotation: { enforce: false, ...project.auditLogRotation },
  };
  if (world.templateKeys.length > 0) spec.alertTemplates = [TEMPLATE_NAME];
  spec.alertConfigs = own;
  spec.prune = project.prune === true;
  return doc('Project', { name: project.name, projectId: project.id, orgId: project.orgId }, spec);
}

/** Every desired-state file of the world, sorted by path. */
export function renderDesiredState(world: World): RenderedFile[] {
  const files: RenderedFile[] = [
    {
      path: 'settings.yaml',
      text: doc('Settings', undefined, {
        mode: 'apply',
        prune: { maxDeletes: 5, allowEmpty: false },
        archive: { versionManifest: true, usage: true },
      }),
    },
    {
      path: 'organizations.yaml',
      text: world.orgs
        .map((o) => doc('Organization', { name: o.name, orgId: o.id }, { defaultServerType: 'PRODUCTION_SERVER' }))
        .join('---\n'),
    },
  ];
  const first = world.projects[0];
  if (world.templateKeys.length > 0 && first) {
    const alertConfigs = first.alerts.filter((a) => a.template).map((a) => ({ key: a.key, ...a.body }));
    files.push({ path: 'templates.yaml', text: doc('AlertTemplate', { name: TEMPLATE_NAME }, { alertConfigs }) });
  }
  for (const project of world.projects) {
    files.push({ path: `projects/${project.name}.yaml`, text: projectDoc(world, project) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The local secrets file (`--secrets-file` format): `{"<secret id>": {"<json key>": "value"}}`. */
export function renderSecretsFile(world: World): string {
  return `${JSON.stringify(world.secrets, null, 2)}\n`;
}
