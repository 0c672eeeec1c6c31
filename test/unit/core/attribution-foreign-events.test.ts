// Scenario: an events answer that carries another scope's events. Singletons (default server type, audit-log rotation)
// are matched by event type alone, so a project's DEFAULT_SERVER_TYPE_CHANGED_AUDIT served on an organization's events
// (or another project's on a project's) would name that project's editor as the author of this target's drift. An
// event whose groupId (or, for an organization, orgId) names another scope is not this target's; one that names none
// is kept, and so is a project's event that carries only an orgId (the spec shows orgId on organization events only).
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import type { Change, TargetRef } from '../../../lambdas/core/model.ts';
import { eventsOnlyApi } from '../../helpers/events-only-api.ts';

const ORG: TargetRef = { type: 'organization', id: '5e2211c17a3e5a48f5497de0', name: 'acme' };
const PROJECT: TargetRef = { type: 'project', id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
const OTHER_PROJECT = '5e2211c17a3e5a48f5497de4';

function serverTypeDrift(target: TargetRef): Change {
  return {
    target,
    kind: 'defaultServerType',
    key: 'defaultServerType',
    action: 'update',
    fields: [],
    reason: 'changed on live',
    drift: { detected: true },
  };
}

function serverTypeEvent(id: string, created: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { id, created, eventTypeName: 'DEFAULT_SERVER_TYPE_CHANGED_AUDIT', ...fields };
}

describe('attributeDrift: events of another scope', () => {
  it("an organization's drift is not blamed on a project's server type change, nor another organization's", async () => {
    const { api } = eventsOnlyApi([
      serverTypeEvent('e-project', '2026-10-14T09:40:00Z', { groupId: PROJECT.id, orgId: ORG.id, username: 'dev' }),
      serverTypeEvent('e-org', '2026-10-14T09:30:00Z', { orgId: ORG.id, username: 'org-admin' }),
      serverTypeEvent('e-other-org', '2026-10-14T09:25:00Z', { orgId: '5e2211c17a3e5a48f5497de1', username: 'globex' }),
      serverTypeEvent('e-bare', '2026-10-14T09:20:00Z', { username: 'unscoped' }),
    ]);
    const change = serverTypeDrift(ORG);
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', { ignoreActor: 'gitopsbt' });
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-org', 'e-bare']);
  });

  it("a project's drift is not blamed on another project's change", async () => {
    const { api } = eventsOnlyApi([
      serverTypeEvent('e-other', '2026-10-14T09:40:00Z', { groupId: OTHER_PROJECT, username: 'dev' }),
      serverTypeEvent('e-own', '2026-10-14T09:30:00Z', { groupId: PROJECT.id, orgId: ORG.id, username: 'j.doe' }),
    ]);
    const change = serverTypeDrift(PROJECT);
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', { ignoreActor: 'gitopsbt' });
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-own']);
  });
});
