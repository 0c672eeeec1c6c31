import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import { changeBody } from '../../../lambdas/core/render/change-lines.ts';
import { driftProblem } from '../../../lambdas/core/saved-plan-members.ts';
import { OpsManagerApiError, OpsManagerTransportError } from '../../../lambdas/opsman/errors.ts';
import { DRIFTED_CONFIG, DRIFTED_PROJECT, driftedAlertChange, eventsOnlyApi } from '../../helpers/events-only-api.ts';
import { driftLines } from '../../helpers/recording-logger.ts';

const _P = DRIFTED_PROJECT;
const CONFIG = DRIFTED_CONFIG;
const TOOL = 'gitopsbt';
const SINCE = '2026-10-14T08:00:05Z';

function edit(id: string, created: string, alertConfigId: string, actor: Record<string, unknown>) {
  return { id, created, eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', alertConfigId, ...actor };
}

describe('drift with no author named: why', () => {
  it('a failed events read: its code and HTTP status, not the server text', async () => {
    const secretish = 'proxy says: token=abc123 <html>';
    const { api } = eventsOnlyApi(
      [],
      () =>
        new OpsManagerApiError(403, 'HTTP_403', secretish, { method: 'GET', pathTemplate: '/groups/{groupId}/events' }),
    );
    const change = driftedAlertChange();
    const warning = await attributeDrift(api, [change], SINCE, { ignoreActor: TOOL });
    expect(warning).toMatch(/unavailable/);
    expect(change.drift).toEqual({
      detected: true,
      unattributed: 'events read failed (code OPSMAN_API_ERROR, HTTP status 403)',
    });
    const [line] = driftLines([change]);
    expect(line?.changedBy).toEqual([]);
    expect(line?.changedByUnknown).toBe('events read failed (code OPSMAN_API_ERROR, HTTP status 403)');
    expect(JSON.stringify(line)).not.toContain('abc123');
  });

  it('a failed read with no HTTP answer names its code alone', async () => {
    const { api } = eventsOnlyApi(
      [],
      () => new OpsManagerTransportError('connect ECONNREFUSED 10.0.0.1', { method: 'GET', pathTemplate: '/x' }, 3),
    );
    const change = driftedAlertChange();
    await attributeDrift(api, [change], SINCE);
    expect(change.drift?.unattributed).toMatch(/^events read failed \(code [A-Z_]+\)$/);
  });

  it('no event of the object in the window', async () => {
    const { api } = eventsOnlyApi([
      edit('e-other', '2026-10-14T09:00:00Z', '6c01000000000000000000ff', { username: 'a' }),
    ]);
    const change = driftedAlertChange();
    expect(await attributeDrift(api, [change], SINCE, { ignoreActor: TOOL })).toBeUndefined();
    expect(change.drift?.unattributed).toBe('no event of this object since 2026-10-14T07:55:05Z');
    expect(driftLines([change])[0]?.changedByUnknown).toBe(change.drift?.unattributed);
    expect(changeBody(change)).toContain(
      'changed outside opsman-gitops (who and when unknown: no event of this object since 2026-10-14T07:55:05Z)',
    );
  });

  it('no event of the object in a read cut at 2,000 events: says the history was cut', async () => {
    const others = Array.from({ length: 2_000 }, (_, n) =>
      edit(`e-${n}`, '2026-10-14T09:00:00Z', '6c01000000000000000000ff', { username: 'a' }),
    );
    const change = driftedAlertChange();
    await attributeDrift(eventsOnlyApi(others).api, [change], SINCE, { ignoreActor: TOOL });
    expect(change.drift?.unattributed).toBe(
      'no event of this object since 2026-10-14T07:55:05Z; only the newest 2,000 events were read',
    );
  });

  it('no usable event of the object: says how many were ignored, as one of them may have named the author', async () => {
    const change = driftedAlertChange();
    const unreadable = edit('e-bad', '14 October 2026', CONFIG, { username: 'j.doe' });
    await attributeDrift(eventsOnlyApi([unreadable]).api, [change], SINCE, { ignoreActor: TOOL });
    expect(change.drift?.unattributed).toBe(
      'no event of this object since 2026-10-14T07:55:05Z; 1 unusable events ignored',
    );
  });

  it("only the tool's own writes, and an edit one of them overwrote", async () => {
    const { api } = eventsOnlyApi([
      edit('e-own', '2026-10-14T09:10:00Z', CONFIG, { publicKey: TOOL }),
      edit('e-old', '2026-10-14T09:00:00Z', CONFIG, { username: 'j.doe' }),
    ]);
    const change = driftedAlertChange();
    await attributeDrift(api, [change], SINCE, { ignoreActor: TOOL, stateSavedAt: '2026-10-14T09:10:30Z' });
    expect(change.drift?.attribution).toBeUndefined();
    expect(change.drift?.unattributed).toMatch(
      /^only this tool's own writes to it \(and edits they overwrote\) since /,
    );
  });

  it('an author named: no reason on the change, none on the line', async () => {
    const { api } = eventsOnlyApi([edit('e-1', '2026-10-14T09:00:00Z', CONFIG, { username: 'j.doe' })]);
    const change = driftedAlertChange();
    await attributeDrift(api, [change], SINCE, { ignoreActor: TOOL });
    expect(change.drift?.unattributed).toBeUndefined();
    const [line] = driftLines([change]);
    expect(line).not.toHaveProperty('changedByUnknown');
    expect(line?.changedBy).toEqual([
      { actor: 'j.doe', actorType: 'user', at: '2026-10-14T09:00:00Z', event: 'ALERT_CONFIG_CHANGED_AUDIT' },
    ]);
  });

  it('the drift line marks our own key used outside our runs, and a key named by its id alone (docs/aws.md)', () => {
    const change = driftedAlertChange();
    const at = { eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT', actorType: 'apiKey' as const };
    change.drift = {
      detected: true,
      attribution: [
        { ...at, created: '2026-10-14T09:30:00Z', actor: TOOL, eventId: 'e-1', viaOwnKey: true },
        { ...at, created: '2026-10-14T09:20:00Z', actor: '6b1f000000000000000000a1', eventId: 'e-2', keyIdOnly: true },
      ],
    };
    expect(driftLines([change])[0]?.changedBy).toEqual([
      { actor: TOOL, actorType: 'apiKey', at: '2026-10-14T09:30:00Z', event: at.eventTypeName, viaOwnKey: true },
      {
        actor: '6b1f000000000000000000a1',
        actorType: 'apiKey',
        at: '2026-10-14T09:20:00Z',
        event: at.eventTypeName,
        keyIdOnly: true,
      },
    ]);
  });

  it('a change the plan made without attribution (observe mode, git moved; an older plan) still says why', () => {
    const pending = { ...driftedAlertChange(), action: 'drift' as const, drift: undefined };
    const older = driftedAlertChange();
    const [a, b] = driftLines([pending, older]);
    expect(a?.changedByUnknown).toMatch(/^not changed outside this tool/);
    expect(b?.changedByUnknown).toMatch(/earlier version/);
  });

  it('a saved plan carries the reason as an optional text member', () => {
    expect(driftProblem({ detected: true, unattributed: 'events read failed (HTTP status 403)' })).toBeUndefined();
    expect(driftProblem({ detected: true })).toBeUndefined();
    expect(driftProblem({ detected: true, unattributed: 3 })).toBe('drift.unattributed is not a string');
  });
});
