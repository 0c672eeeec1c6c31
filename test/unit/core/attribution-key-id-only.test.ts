import { describe, expect, it } from 'vitest';
import { attributeDrift, toAttribution } from '../../../lambdas/core/attribution.ts';
import { streakActors } from '../../../lambdas/core/fight-streak.ts';
import { formatAttribution } from '../../../lambdas/core/render/values.ts';
import { driftProblem } from '../../../lambdas/core/saved-plan-members.ts';
import { DRIFTED_CONFIG, DRIFTED_PROJECT, driftedAlertChange, eventsOnlyApi } from '../../helpers/events-only-api.ts';
import { driftLines } from '../../helpers/recording-logger.ts';

const _P = DRIFTED_PROJECT;
const CONFIG = DRIFTED_CONFIG;
const KEY_ID = '6b1f000000000000000000a2';

const byKeyId = {
  id: 'e-1',
  created: '2026-10-14T09:30:00Z',
  eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
  alertConfigId: CONFIG,
  apiKeyId: KEY_ID,
};

describe('an API key named by its id alone', () => {
  it('is named API key <apiKeyId>, marked keyIdOnly', async () => {
    const { api } = eventsOnlyApi([byKeyId]);
    const change = driftedAlertChange();
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', { ignoreActor: 'gitopsbt' });
    expect(change.drift?.attribution).toEqual([
      {
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        created: '2026-10-14T09:30:00Z',
        actor: KEY_ID,
        actorType: 'apiKey',
        eventId: 'e-1',
        keyIdOnly: true,
      },
    ]);
    const text = formatAttribution(change.drift?.attribution?.[0] as never);
    expect(text).toBe(
      `changed by API key ${KEY_ID} (named by its id alone: may be opsman-gitops's own key) at 2026-10-14T09:30:00Z (ALERT_CONFIG_CHANGED_AUDIT)`,
    );
  });

  it('a key with its public key, or a user, is not marked', () => {
    expect(toAttribution({ ...byKeyId, publicKey: 'jdoekey1' }).keyIdOnly).toBeUndefined();
    expect(toAttribution({ ...byKeyId, apiKeyId: undefined, userId: '5f01' } as never).keyIdOnly).toBeUndefined();
    expect(toAttribution({ ...byKeyId, username: 'j.doe' }).keyIdOnly).toBeUndefined();
  });

  it('is never an update fight actor: its writes may be the reverts of this tool', () => {
    const change = driftedAlertChange();
    change.drift = {
      detected: true,
      attribution: [
        { ...toAttribution(byKeyId) },
        {
          eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
          created: '2026-10-14T09:00:00Z',
          actor: 'j.doe',
          actorType: 'user',
          eventId: 'e-0',
        },
      ],
    };
    expect(streakActors(change)).toEqual(['user:j.doe']);
  });

  it('the drift line carries keyIdOnly, and a saved plan accepts it', () => {
    const change = driftedAlertChange();
    const attribution = toAttribution(byKeyId);
    change.drift = { detected: true, attribution: [attribution] };
    const lines = driftLines([change]);
    expect(lines[0]?.changedBy).toEqual([
      {
        actor: KEY_ID,
        actorType: 'apiKey',
        at: '2026-10-14T09:30:00Z',
        event: 'ALERT_CONFIG_CHANGED_AUDIT',
        keyIdOnly: true,
      },
    ]);
    expect(driftProblem(change.drift)).toBeUndefined();
    expect(driftProblem({ detected: true, attribution: [{ ...attribution, keyIdOnly: false }] })).toBe(
      'drift.attribution[0].keyIdOnly is not true',
    );
  });
});
