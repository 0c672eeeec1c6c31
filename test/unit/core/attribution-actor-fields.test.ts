// Scenario: hostile or odd actor fields in an events answer. An event that names a person is a person's edit even when
// it also carries the tool's own public key (the spec says the two pairs exclude each other; a server that sends both
// must not have a person's edit hidden as the tool's own write, nor the person named as "opsman-gitops's own API key");
// an actor field sent as empty text names no one, and the other id of the pair (or "unknown") stands in.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import { DRIFTED_CONFIG, DRIFTED_PROJECT, driftedAlertChange, eventsOnlyApi } from '../../helpers/events-only-api.ts';

const _P = DRIFTED_PROJECT;
const CONFIG = DRIFTED_CONFIG;
const TOOL = 'gitopsbt';

function edit(id: string, created: string, actor: Record<string, unknown>): Record<string, unknown> {
  return { id, created, eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', alertConfigId: CONFIG, ...actor };
}

describe('attributeDrift: who an event names', () => {
  it("an event naming a user is the user's edit, even with the tool's public key on it", async () => {
    const { api } = eventsOnlyApi([
      edit('e-person', '2026-10-14T09:30:00Z', { username: 'j.doe@acme.example', publicKey: TOOL }),
      edit('e-create', '2026-10-14T08:10:00Z', { publicKey: TOOL }),
    ]);
    const change = driftedAlertChange('drift');
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', {
      ignoreActor: TOOL,
      stateSavedAt: '2026-10-14T08:20:00Z',
    });
    expect(change.drift?.attribution?.map((a) => [a.eventId, a.actor, a.actorType, a.viaOwnKey])).toEqual([
      ['e-person', 'j.doe@acme.example', 'user', undefined],
    ]);
  });

  it('an actor field sent as empty text names no one: the id of the pair, or unknown, stands in', async () => {
    const { api } = eventsOnlyApi([
      edit('e-1', '2026-10-14T09:30:02Z', { username: '', userId: '5f0000000000000000000101' }),
      edit('e-2', '2026-10-14T09:30:01Z', { publicKey: ' ', apiKeyId: '6b1f000000000000000000a2' }),
      edit('e-3', '2026-10-14T09:30:00Z', { username: '', publicKey: '' }),
    ]);
    const change = driftedAlertChange('drift');
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', { ignoreActor: TOOL });
    expect(change.drift?.attribution?.map((a) => [a.eventId, a.actor, a.actorType])).toEqual([
      ['e-1', '5f0000000000000000000101', 'user'],
      ['e-2', '6b1f000000000000000000a2', 'apiKey'],
      ['e-3', 'unknown', 'unknown'],
    ]);
  });
});
