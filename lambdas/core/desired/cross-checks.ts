/**
 * Rules across documents and files: unique ids and names, at most one Settings, template references, unique alert
 * keys after merge, protect keys that exist, release keys that are not declared, and the orgId a TEAM notification
 * needs. Also runs the per-config rules.
 */
import { checkAlertConfig } from './alert-rules.ts';
import { suggestion } from './did-you-mean.ts';
import { asArray, asRecord, asString, issueAt, where } from './issue.ts';
import { type MergedEntry, mergeProject, ownEntries, templateName } from './merge.ts';
import type { ParsedDocument } from './parse.ts';
import type { ValidationIssue } from './types.ts';
import { checkChangeWindows } from './window-checks.ts';

/** Documents of a load grouped by kind (only those with a valid apiVersion and kind). */
export interface DocumentsByKind {
  Project: ParsedDocument[];
  AlertTemplate: ParsedDocument[];
  Organization: ParsedDocument[];
  Settings: ParsedDocument[];
}

function meta(document: ParsedDocument, field: string): string | undefined {
  return asString(asRecord(asRecord(document.value)?.metadata)?.[field]);
}

/** Reports the second and later documents that repeat a value of `field` in metadata. */
function unique(documents: ParsedDocument[], field: string, what: string): ValidationIssue[] {
  const firstSeen = new Map<string, ParsedDocument>();
  const issues: ValidationIssue[] = [];
  for (const document of documents) {
    const value = meta(document, field);
    if (value === undefined) continue;
    const first = firstSeen.get(value);
    if (!first) {
      firstSeen.set(value, document);
      continue;
    }
    const message = `duplicate ${what} ${value}: already declared at ${where(first, ['metadata', field])}`;
    issues.push(issueAt(document, ['metadata', field], message, { expected: `a ${what} used once`, found: value }));
  }
  return issues;
}

function duplicateKeys(entries: MergedEntry[], scope: string): ValidationIssue[] {
  const seen = new Map<string, MergedEntry>();
  const issues: ValidationIssue[] = [];
  for (const entry of entries) {
    const first = seen.get(entry.key);
    if (!first) {
      seen.set(entry.key, entry);
      continue;
    }
    const message = `duplicate alert key "${entry.key}" in ${scope}: already used at ${where(first.document, first.path)}`;
    issues.push(
      issueAt(entry.document, [...entry.path, 'key'], message, { expected: 'a unique key', found: entry.key }),
    );
  }
  return issues;
}

/**
 * Runs every cross-document rule and the per-config rules; returns the issues found. `refusedTemplates`: names of
 * AlertTemplate documents refused at their header (reported there), which projects may name without an issue of theirs.
 */
export function checkDocuments(
  docs: DocumentsByKind,
  refusedTemplates: ReadonlySet<string> = new Set(),
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  issues.push(...unique(docs.Project, 'projectId', 'projectId'), ...unique(docs.Project, 'name', 'project name'));
  issues.push(
    ...unique(docs.Organization, 'orgId', 'orgId'),
    ...unique(docs.Organization, 'name', 'organization name'),
  );
  issues.push(...unique(docs.AlertTemplate, 'name', 'template name'));
  issues.push(...projectIdsThatAreOrgIds(docs));
  const [firstSettings, ...extra] = docs.Settings;
  for (const document of extra) {
    const message = `a second Settings document: at most one is allowed (the first is at ${where(firstSettings as ParsedDocument, [])})`;
    issues.push(issueAt(document, ['kind'], message, { expected: 'at most one Settings document' }));
  }
  const templates = new Map<string, ParsedDocument>();
  for (const template of docs.AlertTemplate) {
    const name = templateName(template);
    if (name !== undefined && !templates.has(name)) templates.set(name, template);
    const entries = ownEntries(template, name);
    issues.push(...duplicateKeys(entries, `template ${name ?? '(unnamed)'}`));
    for (const entry of entries) issues.push(...checkAlertConfig(template, entry.path, entry.value));
  }
  for (const project of docs.Project) issues.push(...checkProject(project, templates, refusedTemplates));
  const projectIds = docs.Project.map((p) => meta(p, 'projectId')).filter((id): id is string => id !== undefined);
  const orgNames = new Map<string, string>();
  for (const o of docs.Organization) {
    const orgId = meta(o, 'orgId');
    if (orgId !== undefined && !orgNames.has(orgId)) orgNames.set(orgId, meta(o, 'name') ?? '(unnamed)');
  }
  issues.push(...checkChangeWindows(firstSettings, projectIds, orgNames));
  return issues;
}

/**
 * A projectId that is an organization's id: the id copied from the wrong field. Ops Manager would answer
 * GROUP_NOT_FOUND at plan time; here it is caught where it is written, naming where the id is an orgId.
 */
function projectIdsThatAreOrgIds(docs: DocumentsByKind): ValidationIssue[] {
  const orgIds = new Map<string, { document: ParsedDocument; what: string }>();
  for (const document of docs.Organization) {
    const orgId = meta(document, 'orgId');
    const label = `organization ${meta(document, 'name') ?? '(unnamed)'}`;
    if (orgId !== undefined && !orgIds.has(orgId)) orgIds.set(orgId, { document, what: `the orgId of ${label}` });
  }
  for (const document of docs.Project) {
    const orgId = meta(document, 'orgId');
    const label = `project ${meta(document, 'name') ?? '(unnamed)'}`;
    if (orgId !== undefined && !orgIds.has(orgId)) orgIds.set(orgId, { document, what: `the orgId of ${label}` });
  }
  const issues: ValidationIssue[] = [];
  for (const document of docs.Project) {
    const projectId = meta(document, 'projectId');
    const org = projectId === undefined ? undefined : orgIds.get(projectId);
    if (org === undefined || projectId === undefined) continue;
    const at =
      meta(document, 'orgId') === projectId
        ? "the same id as this project's metadata.orgId"
        : `${org.what} (${where(org.document, ['metadata', 'orgId'])})`;
    const message = `metadata.projectId ${projectId} is ${at}: a project and an organization never share an id, so one of the two is the wrong id`;
    issues.push(
      issueAt(document, ['metadata', 'projectId'], message, {
        expected: 'an id no organization has',
        found: projectId,
      }),
    );
  }
  return issues;
}

function checkProject(
  project: ParsedDocument,
  templates: Map<string, ParsedDocument>,
  refusedTemplates: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const name = meta(project, 'name') ?? '(unnamed)';
  const spec = asRecord(asRecord(project.value)?.spec);
  asArray(spec?.alertTemplates).forEach((raw, i) => {
    if (typeof raw !== 'string' || templates.has(raw) || refusedTemplates.has(raw)) return;
    const known = [...templates.keys()].sort();
    const hint = suggestion(raw, known);
    const list = known.length > 0 ? `known templates: ${known.join(', ')}` : 'no AlertTemplate documents exist';
    const message = `unknown template "${raw}" (${list})${hint.text}`;
    issues.push(
      issueAt(project, ['spec', 'alertTemplates', i], message, {
        expected: known.join(', '),
        found: raw,
        ...(hint.hint ? { hint: hint.hint } : {}),
      }),
    );
  });
  const own = ownEntries(project);
  issues.push(...duplicateKeys(own, `project ${name}`));
  for (const entry of own) issues.push(...checkAlertConfig(project, entry.path, entry.value));
  const { entries, conflicts } = mergeProject(project, templates);
  for (const { key, first, second } of conflicts) {
    const index = asArray(spec?.alertTemplates).indexOf(second.template);
    const message = `alert key "${key}" comes from both template ${first.template} and template ${second.template}; give project ${name} its own "${key}" entry or rename one`;
    issues.push(issueAt(project, ['spec', 'alertTemplates', index], message, { found: key }));
  }
  const keySet = new Set(entries.map((entry) => entry.key));
  const keys = [...keySet];
  const released = new Set(asArray(spec?.release).filter((k): k is string => typeof k === 'string'));
  asArray(spec?.protect).forEach((raw, i) => {
    // A set, not keys.includes: a project that protects thousands of its thousands of keys checked each against all.
    if (typeof raw !== 'string' || keySet.has(raw)) return;
    if (released.has(raw)) {
      // A key moved from alertConfigs to release while still protected: say why it is wrong, not only that it is.
      const message = `protect names "${raw}", which project ${name} releases (spec.release), so it is no declared key: remove it from protect (a released config is never deleted: a release writes nothing to Ops Manager)`;
      issues.push(issueAt(project, ['spec', 'protect', i], message, { expected: keys.join(', '), found: raw }));
      return;
    }
    const hint = suggestion(raw, keys);
    // Often a key just removed from alertConfigs, protected to keep its config: protect cannot do that (it guards
    // declared keys), release can. The did-you-mean alone would point at another config.
    const message = `protect names "${raw}", which is not an alert key of project ${name}${hint.text} (protect guards declared keys only: to keep the config of a key removed from git in Ops Manager, list the key in spec.release instead, which stops managing it without deleting it)`;
    issues.push(
      issueAt(project, ['spec', 'protect', i], message, {
        expected: keys.join(', '),
        found: raw,
        ...(hint.hint ? { hint: hint.hint } : {}),
      }),
    );
  });
  asArray(spec?.release).forEach((raw, i) => {
    // A released key is one this tool lets go of: declaring it too would have it managed and let go in the same run.
    if (typeof raw !== 'string' || !keySet.has(raw)) return;
    const entry = entries.find((e) => e.key === raw);
    const from = entry?.template === undefined ? '' : ` (from template ${entry.template})`;
    const at = entry === undefined ? '' : `, declared at ${where(entry.document, entry.path)}${from}`;
    // A template is shared: taking the key out of it stops declaring it in every project listing it, and where one of
    // them prunes, its config is deleted there. The message says so, since it suggests that very edit.
    const shared =
      entry?.template === undefined
        ? ''
        : `; a template is shared: every project listing ${entry.template} stops declaring "${raw}" too, and deletes its config where prune is on unless it lists "${raw}" in its own spec.release`;
    const message = `release names "${raw}", which is also a declared alert key of project ${name}${at}: remove it from alertConfigs (or from the template, or the template from alertTemplates) to stop managing it, or from release to keep managing it${shared}`;
    issues.push(issueAt(project, ['spec', 'release', i], message, { expected: 'a key not declared', found: raw }));
  });
  issues.push(...renameIssues(name, entries, keySet, released));
  if (asRecord(asRecord(project.value)?.metadata)?.orgId === undefined) {
    const team = entries.find((entry) =>
      asArray(entry.value.notifications).some((n) => asRecord(n)?.typeName === 'TEAM'),
    );
    if (team) {
      const from = team.template ? ` (from template ${team.template})` : '';
      const message = `metadata.orgId is required: alert "${team.key}"${from} notifies a TEAM, and teams belong to an organization`;
      issues.push(issueAt(project, ['metadata'], message, { expected: 'metadata.orgId' }, 'key'));
    }
  }
  return issues;
}

/**
 * `renamedFrom` of a project's alert configs (templates merged in): an old key must have left git (not declared, not
 * released), and be named by one config only, since one live config can become only one key.
 */
function renameIssues(
  name: string,
  entries: readonly MergedEntry[],
  keys: ReadonlySet<string>,
  released: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const claimedBy = new Map<string, MergedEntry>();
  for (const entry of entries) {
    asArray(entry.value.renamedFrom).forEach((old, j) => {
      if (typeof old !== 'string') return;
      const at = [...entry.path, 'renamedFrom', j];
      const from = entry.template === undefined ? '' : ` (from template ${entry.template})`;
      const first = claimedBy.get(old);
      let message: string | undefined;
      if (keys.has(old)) {
        const declared = entries.find((e) => e.key === old);
        const there = declared === undefined ? '' : ` at ${where(declared.document, declared.path)}`;
        message =
          old === entry.key
            ? `alert key "${entry.key}"${from} names itself in renamedFrom: list only the keys it had before`
            : `alert key "${entry.key}"${from} is renamed from "${old}", but project ${name} still declares "${old}"${there}: a key is renamed from one that left git, so remove the old entry (or "${old}" from renamedFrom)`;
      } else if (released.has(old)) {
        message = `alert key "${entry.key}"${from} is renamed from "${old}", which project ${name} releases (spec.release): a released config is let go, not taken over; remove "${old}" from one of the two`;
      } else if (first !== undefined) {
        message = `alert keys "${first.key}" and "${entry.key}"${from} are both renamed from "${old}" in project ${name}: one live config can become only one of them`;
      } else {
        claimedBy.set(old, entry);
      }
      if (message !== undefined) issues.push(issueAt(entry.document, at, message, { found: old }));
    });
  }
  return issues;
}
