/**
 * The Project document `export` writes for one live project: metadata, the singletons the desired state manages
 * (default server type, audit-log rotation), the alert config entries, and its YAML text. Pure and deterministic:
 * the same live input gives the same bytes.
 */
import { Document, visit } from 'yaml';
import type { AuditLogRotateConfig, ServerType } from '../../opsman/types.ts';
import { API_VERSION } from '../desired/enums.ts';
import { AUDIT_LOG_DEFAULTS, ROTATION_FIELDS } from '../plan-singletons.ts';
import { printable } from '../printable.ts';

/** The singletons read for a project (absent: not read, e.g. the key may not read them). */
export interface LiveSingletons {
  defaultServerType?: ServerType | null;
  auditLogRotation?: AuditLogRotateConfig;
}

/** What goes under `spec` besides the alert configs. */
export interface SpecSingletons {
  defaultServerType?: string;
  auditLogRotation?: Record<string, unknown>;
}

/** The `metadata.name` of an exported project (Ops Manager's project name is not in the API the tool reads). */
export function exportedProjectName(projectId: string): string {
  return `project-${projectId}`;
}

/**
 * The `auditLogRotation` entry of a live rotation config: the fields set, those equal to Ops Manager's defaults left
 * out, `enforce` left out (default false: a difference is reported, never written). `{}` (no rotation) gives neither
 * entry nor problem; one without the two fields the desired state requires gives a problem.
 */
export function rotationEntry(live: AuditLogRotateConfig): { entry?: Record<string, unknown>; problem?: string } {
  const set = ROTATION_FIELDS.filter((f) => live[f] !== undefined && live[f] !== null);
  if (set.length === 0) return {};
  const missing = (['sizeThresholdMB', 'timeThresholdHrs'] as const).filter((f) => !set.includes(f));
  if (missing.length > 0) {
    return {
      problem: `Ops Manager's rotation config has no ${missing.join(' or ')}, which the desired state requires`,
    };
  }
  const entry: Record<string, unknown> = {};
  for (const field of set) {
    const value = Number(live[field]);
    if (value !== AUDIT_LOG_DEFAULTS[field]) entry[field] = value;
  }
  return { entry };
}

/** The spec singletons of live ones (problems as sentences: what was left out and why). */
export function specSingletons(live: LiveSingletons): { singletons: SpecSingletons; problems: string[] } {
  const singletons: SpecSingletons = {};
  const problems: string[] = [];
  if (live.defaultServerType?.name !== undefined) singletons.defaultServerType = live.defaultServerType.name;
  if (live.auditLogRotation !== undefined) {
    const rotation = rotationEntry(live.auditLogRotation);
    if (rotation.entry !== undefined) singletons.auditLogRotation = rotation.entry;
    if (rotation.problem !== undefined) problems.push(`audit-log rotation not exported: ${rotation.problem}`);
  }
  return { singletons, problems };
}

/** The Project document. */
export function projectDocument(
  projectId: string,
  orgId: string | undefined,
  singletons: SpecSingletons,
  alertConfigs: readonly Record<string, unknown>[],
): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: 'Project',
    metadata: { name: exportedProjectName(projectId), projectId, ...(orgId === undefined ? {} : { orgId }) },
    spec: { ...singletons, alertConfigs },
  };
}

/** The YAML text of a Project document, with a header saying where it came from and what to do next. */
export function projectYaml(document: Record<string, unknown>, projectId: string): string {
  const header = [
    `# Exported from Ops Manager by \`opsman-gitops export\` (project ${projectId}).`,
    '# Rename metadata.name and the keys as you like: plan adopts each config (<=) by content. Configs equal but for a',
    // Equal configs are claimed oldest first in key order (numbers compared as numbers); renamed keys can pair another
    // config with the references filled for this one. After the first apply the state records which is which.
    '# secret (numbered keys, -2, -3...) are told apart by key order only: rename those after the first apply.',
    '# Secret fields are references: create each one before running plan (export listed them on stderr).',
    // Without this line a first `apply` of an exported file reports every adoption as skipped and a new user asks why.
    '# apply writes only where the mode is apply: spec.mode here or Settings.mode (the default is plan, which writes nothing).',
  ];
  // Live has no notion of enforcing: a file exported from a project whose rotation a tool used to keep would otherwise
  // stop keeping it without a word (a change in live is then reported as drift, never put back).
  if ((document.spec as Record<string, unknown> | undefined)?.auditLogRotation !== undefined) {
    header.push(
      '# auditLogRotation is exported as an expectation (drift reported, never written): add enforce: true to keep it.',
    );
  }
  const yaml = new Document(document);
  // A string holding one of them is written double-quoted, and each of them as its \u escape (printable.ts), so the
  // file shows what it holds and loads back as the same string: a reviewer of the pull request sees `\u202e`, not
  // text that a bidi override reorders or a C1 control acts on. The YAML writer escapes only C0 controls itself.
  // A string ending with a line break is double-quoted too: as a block scalar its `\n` would be unseen (and the loader
  // refuses free text so ended, explaining a block scalar's break: export leaves such a config out, saying why).
  visit(yaml, {
    Scalar(_, node) {
      if (typeof node.value === 'string' && (RAW_INVISIBLE.test(node.value) || /[\r\n]$/.test(node.value))) {
        node.type = 'QUOTE_DOUBLE';
      }
    },
  });
  const body = yaml.toString({ lineWidth: 0 }).replace(RAW_INVISIBLE_ALL, printable);
  return `${header.join('\n')}\n${body}`;
}

/** What the YAML writer leaves raw even in a double-quoted scalar: DEL, C1, format characters, lone surrogates, separators. */
const RAW_INVISIBLE = /[\u007f-\u009f\p{Cf}\p{Cs}\u2028\u2029]/u;
const RAW_INVISIBLE_ALL = new RegExp(RAW_INVISIBLE.source, 'gu');
