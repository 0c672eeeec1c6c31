// Scenario: the events window's lower edge, read on the answer too. `minDate` is inclusive: an edit stamped exactly at
// it is an author. A server that ignores `minDate` (or a proxy that drops the query) serves events from before the
// window: an edit older than the last clean reconcile, put back or undone long ago, is not the author of today's drift.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import { DRIFTED_CONFIG, driftedAlertChange, eventsOnlyApi } from '../../helpers/events-only-api.ts';

const CONFIG = DRIFTED_CONFIG;

function edit(id: string, created: string, username: string): Record<string, unknown> {
  return { id, created, eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', alertConfigId: CONFIG, username };
}

describe('attributeDrift: the lower edge of the window', () => {
  it('keeps an edit stamped exactly at minDate and drops one before it that a server served anyway', async () => {
    // A server that ignores minDate: it answers every event whatever the query says.
    const { api, queries: asked } = eventsOnlyApi([
      edit('e-edge', '2026-10-14T07:55:05Z', 'at-the-edge'),
      edit('e-before', '2026-10-14T07:55:04Z', 'one-second-before'),
      edit('e-old', '2026-09-01T10:00:00Z', 'last-month'),
    ]);
    const change = driftedAlertChange('drift');
    await attributeDrift(api, [change], '2026-10-14T08:00:05.700Z', { ignoreActor: 'gitopsbt' });
    expect(asked[0]?.minDate).toBe('2026-10-14T07:55:05Z');
    expect(change.drift?.attribution?.map((a) => a.actor)).toEqual(['at-the-edge']);
  });
});
