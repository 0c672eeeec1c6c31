/**
 * The roles matrix. Owners include the lesser roles of their scope; an organization owner owns its projects and an
 * organization read-only key reads them; global roles apply everywhere at their level.
 */
import type { ApiKeyRec, RoleName } from '../store/state.ts';

/** Levels within a project. */
export type GroupLevel = 'READ_ONLY' | 'AUTOMATION_ADMIN' | 'MONITORING_ADMIN' | 'OWNER';

/** What an operation needs. */
export type Requirement =
  | { kind: 'any' }
  | { kind: 'global'; level: 'READ' | 'AUTOMATION_ADMIN' | 'OWNER' }
  | { kind: 'group'; level: GroupLevel }
  | { kind: 'org'; level: 'MEMBER' | 'OWNER' };

/** Project levels each role grants inside its scope. */
const GROUP_GRANTS: Partial<Record<RoleName, readonly GroupLevel[]>> = {
  GLOBAL_OWNER: ['READ_ONLY', 'AUTOMATION_ADMIN', 'MONITORING_ADMIN', 'OWNER'],
  GLOBAL_READ_ONLY: ['READ_ONLY'],
  GLOBAL_AUTOMATION_ADMIN: ['READ_ONLY', 'AUTOMATION_ADMIN'],
  GLOBAL_MONITORING_ADMIN: ['READ_ONLY', 'MONITORING_ADMIN'],
  ORG_OWNER: ['READ_ONLY', 'AUTOMATION_ADMIN', 'MONITORING_ADMIN', 'OWNER'],
  ORG_READ_ONLY: ['READ_ONLY'],
  GROUP_OWNER: ['READ_ONLY', 'AUTOMATION_ADMIN', 'MONITORING_ADMIN', 'OWNER'],
  GROUP_AUTOMATION_ADMIN: ['READ_ONLY', 'AUTOMATION_ADMIN'],
  GROUP_MONITORING_ADMIN: ['READ_ONLY', 'MONITORING_ADMIN'],
  GROUP_READ_ONLY: ['READ_ONLY'],
};

/** The scope a check runs in: the project of the path and its organization, or the organization of the path. */
export interface RoleScope {
  groupId?: string;
  orgId?: string;
}

function groupAllowed(key: ApiKeyRec, level: GroupLevel, scope: RoleScope): boolean {
  return key.roles.some((r) => {
    const grants = GROUP_GRANTS[r.roleName] ?? [];
    if (!grants.includes(level)) return false;
    if (r.roleName.startsWith('GLOBAL_')) return true;
    if (r.roleName.startsWith('ORG_')) return scope.orgId !== undefined && r.orgId === scope.orgId;
    return scope.groupId !== undefined && r.groupId === scope.groupId;
  });
}

function orgAllowed(key: ApiKeyRec, level: 'MEMBER' | 'OWNER', scope: RoleScope): boolean {
  return key.roles.some((r) => {
    if (r.roleName === 'GLOBAL_OWNER') return true;
    if (r.roleName.startsWith('GLOBAL_')) return level === 'MEMBER';
    if (!r.roleName.startsWith('ORG_') || r.orgId !== scope.orgId || scope.orgId === undefined) return false;
    return r.roleName === 'ORG_OWNER' || level === 'MEMBER';
  });
}

function globalAllowed(key: ApiKeyRec, level: 'READ' | 'AUTOMATION_ADMIN' | 'OWNER'): boolean {
  return key.roles.some((r) => {
    if (r.roleName === 'GLOBAL_OWNER') return true;
    if (level === 'READ') return r.roleName.startsWith('GLOBAL_');
    return level === 'AUTOMATION_ADMIN' && r.roleName === 'GLOBAL_AUTOMATION_ADMIN';
  });
}

/** True when `key` may perform an operation with requirement `need` in `scope`. */
export function isAllowed(key: ApiKeyRec, need: Requirement, scope: RoleScope): boolean {
  switch (need.kind) {
    case 'any':
      return true;
    case 'global':
      return globalAllowed(key, need.level);
    case 'group':
      return groupAllowed(key, need.level, scope);
    case 'org':
      return orgAllowed(key, need.level, scope);
  }
}
