// Scenario: the roles matrix, table-driven: every role against every requirement, inside and outside its scope.
import { describe, expect, it } from 'vitest';
import { isAllowed, type Requirement } from '../../../emulator/auth/roles.ts';
import type { ApiKeyRec, RoleAssignment } from '../../../emulator/store/state.ts';

const G = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const G2 = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const O = 'cccccccccccccccccccccccc';
const O2 = 'dddddddddddddddddddddddd';
const key = (...roles: RoleAssignment[]): ApiKeyRec => ({ id: 'k', publicKey: 'k', privateKey: 'p', roles });

const NEEDS: Record<string, Requirement> = {
  groupRead: { kind: 'group', level: 'READ_ONLY' },
  groupAuto: { kind: 'group', level: 'AUTOMATION_ADMIN' },
  groupMon: { kind: 'group', level: 'MONITORING_ADMIN' },
  groupOwner: { kind: 'group', level: 'OWNER' },
  orgMember: { kind: 'org', level: 'MEMBER' },
  orgOwner: { kind: 'org', level: 'OWNER' },
  globalRead: { kind: 'global', level: 'READ' },
  globalAuto: { kind: 'global', level: 'AUTOMATION_ADMIN' },
  globalOwner: { kind: 'global', level: 'OWNER' },
  any: { kind: 'any' },
};

// Columns: groupRead groupAuto groupMon groupOwner orgMember orgOwner globalRead globalAuto globalOwner any
const MATRIX: [string, RoleAssignment[], string][] = [
  ['GLOBAL_OWNER', [{ roleName: 'GLOBAL_OWNER' }], '1111111111'],
  ['GLOBAL_READ_ONLY', [{ roleName: 'GLOBAL_READ_ONLY' }], '1000101001'],
  ['GLOBAL_AUTOMATION_ADMIN', [{ roleName: 'GLOBAL_AUTOMATION_ADMIN' }], '1100101101'],
  ['GLOBAL_MONITORING_ADMIN', [{ roleName: 'GLOBAL_MONITORING_ADMIN' }], '1010101001'],
  ['ORG_OWNER of the org', [{ roleName: 'ORG_OWNER', orgId: O }], '1111110001'],
  ['ORG_MEMBER of the org', [{ roleName: 'ORG_MEMBER', orgId: O }], '0000100001'],
  ['ORG_READ_ONLY of the org', [{ roleName: 'ORG_READ_ONLY', orgId: O }], '1000100001'],
  ['ORG_OWNER of another org', [{ roleName: 'ORG_OWNER', orgId: O2 }], '0000000001'],
  ['GROUP_OWNER of the project', [{ roleName: 'GROUP_OWNER', groupId: G }], '1111000001'],
  ['GROUP_AUTOMATION_ADMIN', [{ roleName: 'GROUP_AUTOMATION_ADMIN', groupId: G }], '1100000001'],
  ['GROUP_MONITORING_ADMIN', [{ roleName: 'GROUP_MONITORING_ADMIN', groupId: G }], '1010000001'],
  ['GROUP_READ_ONLY', [{ roleName: 'GROUP_READ_ONLY', groupId: G }], '1000000001'],
  ['GROUP_OWNER of another project', [{ roleName: 'GROUP_OWNER', groupId: G2 }], '0000000001'],
  ['no role at all', [], '0000000001'],
];

describe('isAllowed', () => {
  it.each(MATRIX)('%s', (_name, roles, expected) => {
    const k = key(...roles);
    const got = Object.values(NEEDS)
      .map((need) => (isAllowed(k, need, { groupId: G, orgId: O }) ? '1' : '0'))
      .join('');
    expect(got).toBe(expected);
  });
});
