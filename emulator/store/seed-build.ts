/**
 * Builds the in-memory State from a seed document, reporting every problem with its path. The data file stores the
 * same document shape (see snapshot.ts), so a restart goes through the same checks.
 */
import { validateAlertConfig } from '../alerts/validate.ts';
import { ApiError, SeedError } from '../errors.ts';
import { derivedObjectId, isoSeconds, newObjectId } from '../ids.ts';
import { Checker } from './checker.ts';
import { buildExtras } from './seed-build-extras.ts';
import type { ApiKeyRec, RoleAssignment, State, StoredAlertConfig } from './state.ts';
import { DEFAULT_SERVICE_VERSION, groupAlerts, ROLE_NAMES } from './state.ts';

/** Top-level sections of a seed. */
export const SEED_SECTIONS = [
  'serviceVersion',
  'organizations',
  'projects',
  'teams',
  'apiKeys',
  'alertConfigs',
  'physicalHosts',
  'hostAssignments',
  'defaultServerTypes',
  'auditLogRotateConfigs',
  'versionManifest',
  's3Configs',
  'events',
] as const;

/** An empty state. */
export function emptyState(): State {
  return {
    serviceVersion: { ...DEFAULT_SERVICE_VERSION },
    orgs: new Map(),
    groups: new Map(),
    teams: new Map(),
    apiKeys: new Map(),
    alertConfigs: new Map(),
    physicalHosts: new Map(),
    hostAssignments: [],
    groupServerTypes: new Map(),
    orgServerTypes: new Map(),
    auditLogRotate: new Map(),
    versionManifest: null,
    s3Configs: new Map(),
    events: [],
  };
}

function buildDirectory(doc: Record<string, unknown>, c: Checker, state: State): void {
  const sv =
    doc.serviceVersion === undefined
      ? undefined
      : c.object(doc.serviceVersion, 'serviceVersion', ['gitHash', 'versionString']);
  if (sv) {
    const gitHash = c.string(sv.gitHash, 'serviceVersion.gitHash');
    if (gitHash !== undefined && !/^[0-9a-f]{40}$/.test(gitHash))
      c.add('serviceVersion.gitHash', 'expected 40 hex characters');
    const versionString = c.string(sv.versionString, 'serviceVersion.versionString');
    if (gitHash && versionString) state.serviceVersion = { gitHash, versionString };
  }
  for (const [i, raw] of c.array(doc.organizations, 'organizations').entries()) {
    const p = `organizations[${i}]`;
    const o = c.object(raw, p, ['id', 'name']);
    const id = c.objectId(o?.id, `${p}.id`);
    const name = c.string(o?.name, `${p}.name`);
    if (id && state.orgs.has(id)) c.add(`${p}.id`, `duplicate organization id ${id}`);
    else if (id && name) state.orgs.set(id, { id, name });
  }
  for (const [i, raw] of c.array(doc.projects, 'projects').entries()) {
    const p = `projects[${i}]`;
    const o = c.object(raw, p, ['id', 'name', 'orgId']);
    const id = c.objectId(o?.id, `${p}.id`);
    const name = c.string(o?.name, `${p}.name`);
    const orgId = c.objectId(o?.orgId, `${p}.orgId`);
    if (orgId && !state.orgs.has(orgId)) c.add(`${p}.orgId`, `unknown organization ${orgId}`);
    if (id && state.groups.has(id)) c.add(`${p}.id`, `duplicate project id ${id}`);
    else if (id && name && orgId) state.groups.set(id, { id, name, orgId });
  }
  for (const [i, raw] of c.array(doc.teams, 'teams').entries()) {
    const p = `teams[${i}]`;
    const o = c.object(raw, p, ['id', 'name', 'orgId']);
    const id = c.objectId(o?.id, `${p}.id`);
    const name = c.string(o?.name, `${p}.name`);
    const orgId = c.objectId(o?.orgId, `${p}.orgId`);
    if (orgId && !state.orgs.has(orgId)) c.add(`${p}.orgId`, `unknown organization ${orgId}`);
    if (id && name && orgId) state.teams.set(id, { id, name, orgId });
  }
}

function buildRole(raw: unknown, p: string, c: Checker, state: State): RoleAssignment | undefined {
  const o = c.object(raw, p, ['roleName', 'orgId', 'groupId']);
  const roleName = c.oneOf(o?.roleName, `${p}.roleName`, ROLE_NAMES);
  if (!o || !roleName) return undefined;
  const role: RoleAssignment = { roleName };
  const scope = roleName.split('_')[0];
  if (scope === 'ORG') {
    const orgId = c.objectId(o.orgId, `${p}.orgId`);
    if (orgId && !state.orgs.has(orgId)) c.add(`${p}.orgId`, `unknown organization ${orgId}`);
    if (orgId) role.orgId = orgId;
  } else if (o.orgId !== undefined) c.add(`${p}.orgId`, `only ORG_* roles take an orgId`);
  if (scope === 'GROUP') {
    const groupId = c.objectId(o.groupId, `${p}.groupId`);
    if (groupId && !state.groups.has(groupId)) c.add(`${p}.groupId`, `unknown project ${groupId}`);
    if (groupId) role.groupId = groupId;
  } else if (o.groupId !== undefined) c.add(`${p}.groupId`, `only GROUP_* roles take a groupId`);
  return role;
}

function buildApiKeys(doc: Record<string, unknown>, c: Checker, state: State): void {
  for (const [i, raw] of c.array(doc.apiKeys, 'apiKeys').entries()) {
    const p = `apiKeys[${i}]`;
    const o = c.object(raw, p, ['id', 'publicKey', 'privateKey', 'desc', 'roles']);
    const publicKey = c.string(o?.publicKey, `${p}.publicKey`);
    if (publicKey !== undefined && !/^[A-Za-z0-9._-]+$/.test(publicKey))
      c.add(`${p}.publicKey`, 'expected letters, digits, ".", "_" or "-"');
    const privateKey = c.string(o?.privateKey, `${p}.privateKey`);
    const id = c.objectId(o?.id, `${p}.id`, false) ?? (publicKey ? derivedObjectId(`apiKey:${publicKey}`) : undefined);
    const desc = c.string(o?.desc, `${p}.desc`, false);
    const roles = c.array(o?.roles, `${p}.roles`).map((r, j) => buildRole(r, `${p}.roles[${j}]`, c, state));
    if (publicKey && state.apiKeys.has(publicKey)) c.add(`${p}.publicKey`, `duplicate public key ${publicKey}`);
    else if (publicKey && privateKey && id) {
      const key: ApiKeyRec = { id, publicKey, privateKey, roles: roles.filter((r): r is RoleAssignment => !!r) };
      if (desc) key.desc = desc;
      state.apiKeys.set(publicKey, key);
    }
  }
}

function buildAlertConfigs(doc: Record<string, unknown>, c: Checker, state: State, now: number): void {
  const seen = new Set<string>();
  for (const [i, raw] of c.array(doc.alertConfigs, 'alertConfigs').entries()) {
    const p = `alertConfigs[${i}]`;
    const o = c.object(raw, p);
    if (!o) continue;
    const groupId = c.objectId(o.groupId, `${p}.groupId`);
    if (!groupId) continue;
    if (!state.groups.has(groupId)) {
      c.add(`${p}.groupId`, `unknown project ${groupId}`);
      continue;
    }
    const created = c.timestamp(o.created, `${p}.created`, false) ?? isoSeconds(now);
    const updated = c.timestamp(o.updated, `${p}.updated`, false) ?? created;
    try {
      const v = validateAlertConfig(o, { groupId, mode: 'seed', newId: () => newObjectId(now) });
      const id = typeof o.id === 'string' ? o.id : newObjectId(now);
      if (seen.has(id)) {
        c.add(`${p}.id`, `duplicate alert config id ${id}`);
        continue;
      }
      seen.add(id);
      const cfg: StoredAlertConfig = { id, groupId, created, updated, ...v };
      groupAlerts(state, groupId).set(id, cfg);
    } catch (err) {
      if (err instanceof ApiError) c.add(p, `${err.code}: ${err.message}`);
      else throw err;
    }
  }
}

/** Builds a State from a parsed seed document; throws SeedError listing every problem. */
export function buildState(doc: unknown, source: string, now = Date.now()): State {
  const c = new Checker();
  const state = emptyState();
  const root = c.object(doc ?? {}, '(seed)', SEED_SECTIONS);
  if (root) {
    buildDirectory(root, c, state);
    buildApiKeys(root, c, state);
    buildAlertConfigs(root, c, state, now);
    buildExtras(root, c, state, now);
  }
  if (c.issues.length > 0) throw new SeedError(source, c.issues);
  return state;
}
