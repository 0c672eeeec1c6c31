// attributeDrift (lambdas/core/attribution.ts): the events of a vanished config's former id count, and an edit in the
// same second as the tool's own write is kept whatever fraction of that second each was stamped with.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import { eventsOnlyApi as eventsApi } from '../../helpers/events-only-api.ts';

const P = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
const OLD = '6c0100000000000000000001';
const NEW = '6c0100000000000000000002';
const TOOL = 'gitopsbt';

function drifted(id: string): Change {
  const change: Change = { target: P, kind: 'alertConfig', key: 'disk', action: 'drift', id, fields: [], reason: 'x' };
  change.drift = { detected: true };
  return change;
}

const by = (id: string, alertConfigId: string, eventTypeName: string, created: string, who: object) => ({
  id,
  alertConfigId,
  eventTypeName,
  created,
  ...who,
});
const USER = { userId: '5f0000000000000000000101', username: 'j.doe@acme.example' };

describe('attributeDrift: the former id of a vanished config', () => {
  it('names who deleted the former config as well as who made the one adopted in its place', async () => {
    const { api } = eventsApi([
      by('e-del', OLD, 'ALERT_CONFIG_DELETED_AUDIT', '2026-10-14T09:00:00Z', USER),
      by('e-add', NEW, 'ALERT_CONFIG_ADDED_AUDIT', '2026-10-14T09:01:00Z', USER),
    ]);
    const change = drifted(NEW);
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z', { formerIds: new Map([['disk', OLD]]) });
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-add', 'e-del']);
  });
});

describe('attributeDrift: an edit in the same second as our own write', () => {
  it('is kept though stamped at an earlier fraction of that second', async () => {
    const { api } = eventsApi([
      by('e-ours', NEW, 'ALERT_CONFIG_CHANGED_AUDIT', '2026-10-14T09:00:00.700Z', { publicKey: TOOL }),
      by('e-edit', NEW, 'ALERT_CONFIG_CHANGED_AUDIT', '2026-10-14T09:00:00.200Z', USER),
      by('e-older', NEW, 'ALERT_CONFIG_CHANGED_AUDIT', '2026-10-14T08:59:59.900Z', USER),
    ]);
    const change = drifted(NEW);
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z', { ignoreActor: TOOL });
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-edit']);
  });
});
