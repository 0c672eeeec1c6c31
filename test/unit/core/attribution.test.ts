// Drift attribution read literally against the spec's Event resource and events endpoints: which events count, in
// which order, and what a broken answer does. attributeDrift is called directly with a stub API.
import { describe, expect, it } from 'vitest';
import { attributeDrift } from '../../../lambdas/core/attribution.ts';
import type { Change } from '../../../lambdas/core/model.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { eventsOnlyApi as eventsApi } from '../../helpers/events-only-api.ts';

const P = { type: 'project' as const, id: '5e2211c17a3e5a48f5497de3', name: 'payments-prod' };
const CONFIG = '6c0100000000000000000001';
const TOOL = 'gitopsbt';

function drifted(id = CONFIG): Change {
  return {
    target: P,
    kind: 'alertConfig',
    key: 'disk',
    action: 'drift',
    id,
    fields: [],
    reason: 'changed on live',
    drift: { detected: true },
  };
}

let seq = 0;
function event(fields: Record<string, unknown>): Record<string, unknown> {
  seq++;
  return {
    id: `6f0e${String(seq).padStart(20, '0')}`,
    eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
    alertConfigId: CONFIG,
    userId: '5f0000000000000000000101',
    username: 'j.doe@acme.example',
    ...fields,
  };
}

describe('attributeDrift: which events count', () => {
  it('an event of another type that carries the config id (an alert firing) is not a change to the config', async () => {
    // Alert events reference their configuration through alertConfigId too (spec, Events section); a server that
    // answers more than the eventType filter asked must not turn an OUTSIDE_METRIC_THRESHOLD into an author.
    const { api } = eventsApi([
      event({ id: 'e-alert', eventTypeName: 'OUTSIDE_METRIC_THRESHOLD', created: '2026-10-14T10:00:00Z' }),
      event({ id: 'e-unknown', eventTypeName: 'SOMETHING_NEW_AUDIT', created: '2026-10-14T10:00:01Z' }),
      event({ id: 'e-edit', created: '2026-10-14T09:00:00Z' }),
    ]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z', { ignoreActor: TOOL });
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-edit']);
  });

  it('asks only for the alert-config audit types named by the reference', async () => {
    const { api, queries } = eventsApi([]);
    await attributeDrift(api, [drifted()], '2026-10-14T08:00:00Z');
    expect([...(queries[0]?.eventType ?? [])].sort()).toEqual([
      'ALERT_CONFIG_ADDED_AUDIT',
      'ALERT_CONFIG_CHANGED_AUDIT',
      'ALERT_CONFIG_DELETED_AUDIT',
      'ALERT_CONFIG_DISABLED_AUDIT',
      'ALERT_CONFIG_ENABLED_AUDIT',
    ]);
  });

  it('an event without alertConfigId is not attributed to any config', async () => {
    const { api } = eventsApi([event({ id: 'e-none', alertConfigId: undefined, created: '2026-10-14T09:00:00Z' })]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z');
    expect(change.drift?.attribution).toBeUndefined();
  });
});

describe('attributeDrift: order of several events', () => {
  it('orders by instant, not by text: milliseconds and offsets are read as times', async () => {
    // ISO 8601 allows fractions and offsets; as text "…44.500Z" sorts before "…44Z" and "+02:00" compares as digits.
    const { api } = eventsApi([
      event({ id: 'e-whole', created: '2026-10-14T09:12:44Z' }),
      event({ id: 'e-millis', created: '2026-10-14T09:12:44.500Z' }),
      event({ id: 'e-offset', created: '2026-10-14T11:12:45+02:00' }),
    ]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:00Z');
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-offset', 'e-millis', 'e-whole']);
  });

  it('names the 5 newest of its events, not more', async () => {
    const events = [1, 2, 3, 4, 5, 6].map((n) => event({ id: `e-${n}`, created: `2026-10-14T09:0${n}:00Z` }));
    const change = drifted();
    await attributeDrift(eventsApi(events).api, [change], '2026-10-14T08:00:00Z');
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-6', 'e-5', 'e-4', 'e-3', 'e-2']);
  });

  it('events of the same second are ordered the same way on every run, whatever order the server sends', async () => {
    const a = event({ id: 'e-a', created: '2026-10-14T09:12:44Z', username: 'a@acme.example' });
    const b = event({ id: 'e-b', created: '2026-10-14T09:12:44Z', username: 'b@acme.example' });
    const one = drifted();
    const two = drifted();
    await attributeDrift(eventsApi([a, b]).api, [one], undefined);
    await attributeDrift(eventsApi([b, a]).api, [two], undefined);
    expect(one.drift?.attribution).toEqual(two.drift?.attribution);
  });

  it('reads the timestamp forms Java emits: microseconds, nanoseconds, +0000, +00:00, lower-case z', async () => {
    const { api } = eventsApi([
      event({ id: 'e-1', created: '2026-10-14T09:12:41Z' }),
      event({ id: 'e-2', created: '2026-10-14T09:12:42.123456Z' }),
      event({ id: 'e-3', created: '2026-10-14T09:12:43.123456789+00:00' }),
      event({ id: 'e-4', created: '2026-10-14T09:12:44+0000' }),
      event({ id: 'e-5', created: '2026-10-14t09:12:45z' }),
    ]);
    const change = drifted();
    const warning = await attributeDrift(api, [change], undefined);
    expect(warning).toBeUndefined();
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-5', 'e-4', 'e-3', 'e-2', 'e-1']);
  });

  it('a created without a zone is UTC (the spec says so), whatever the local time zone', async () => {
    // Date.parse reads "2026-10-14T10:00:00" as local time: in Kiritimati (UTC+14) it would fall before 09:00Z.
    const saved = process.env.TZ;
    try {
      for (const zone of ['Pacific/Kiritimati', 'America/St_Johns']) {
        process.env.TZ = zone;
        const { api } = eventsApi([
          event({ id: 'e-zoned', created: '2026-10-14T09:00:00Z' }),
          event({ id: 'e-zoneless', created: '2026-10-14T10:00:00' }),
          event({ id: 'e-older', created: '2026-10-14T08:00:00Z' }),
        ]);
        const change = drifted();
        await attributeDrift(api, [change], undefined);
        expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-zoneless', 'e-zoned', 'e-older']);
      }
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it.each([
    '5',
    'Mon, 1',
    '2026',
    '2026-10-14',
    '2026-02-30T09:00:00Z',
    '2026-10-14T24:00:00Z',
    'Wed, 14 Oct 2026 09:00:00 GMT',
  ])('a created %j that Date.parse would take for a time is left out and counted', async (created) => {
    const { api } = eventsApi([
      event({ id: 'e-bad', created }),
      event({ id: 'e-good', created: '2026-10-14T09:00:00Z' }),
    ]);
    const change = drifted();
    const warning = await attributeDrift(api, [change], undefined);
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-good']);
    expect(warning).toContain('1 of 2 events were ignored');
  });

  it('an event whose created is not a time is left out and counted in the warning', async () => {
    const { api } = eventsApi([
      event({ id: 'e-bad', created: 'yesterday' }),
      event({ id: 'e-good', created: '2026-10-14T09:00:00Z' }),
    ]);
    const change = drifted();
    const warning = await attributeDrift(api, [change], undefined);
    expect(change.drift?.attribution?.map((a) => a.eventId)).toEqual(['e-good']);
    expect(warning).toContain('1 of 2 events were ignored');
  });
});

describe('attributeDrift: the actor', () => {
  it('names the user by userId, or the API key by apiKeyId, when the event leaves out the name', async () => {
    // The spec pairs userId with username and apiKeyId with publicKey; an event carrying only the id still has an
    // author, and "unknown" would hide who it was.
    const { api } = eventsApi([
      {
        id: 'e-user',
        created: '2026-10-14T09:00:01Z',
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        alertConfigId: CONFIG,
        userId: '5f0000000000000000000101',
      },
      {
        id: 'e-key',
        created: '2026-10-14T09:00:00Z',
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        alertConfigId: CONFIG,
        apiKeyId: '6b1f000000000000000000a2',
      },
    ]);
    const change = drifted();
    await attributeDrift(api, [change], undefined, { ignoreActor: TOOL });
    expect(change.drift?.attribution?.map((a) => [a.actor, a.actorType])).toEqual([
      ['5f0000000000000000000101', 'user'],
      ['6b1f000000000000000000a2', 'apiKey'],
    ]);
  });

  it('an event with no actor at all is still listed, as unknown', async () => {
    const { api } = eventsApi([
      {
        id: 'e-none',
        created: '2026-10-14T09:00:00Z',
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        alertConfigId: CONFIG,
      },
    ]);
    const change = drifted();
    await attributeDrift(api, [change], undefined, { ignoreActor: TOOL });
    expect(change.drift?.attribution?.[0]).toMatchObject({ actor: 'unknown', actorType: 'unknown' });
  });
});

describe('attributeDrift: our own key, outside our runs', () => {
  const own = (id: string, created: string) =>
    event({ id, created, userId: undefined, username: undefined, publicKey: TOOL, remoteAddress: '10.0.0.7' });
  // The state was last saved at 08:20 (after the writes of the run that saved it, a saved plan applied late included).
  const options = { ignoreActor: TOOL, stateSavedAt: '2026-10-14T08:20:00Z' };

  it('names our own key when only it changed the object, after the state was last saved', async () => {
    const { api } = eventsApi([own('e-run', '2026-10-14T08:19:00Z'), own('e-hand', '2026-10-14T09:30:00Z')]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', options);
    expect(change.drift?.attribution).toEqual([
      {
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        created: '2026-10-14T09:30:00Z',
        actor: TOOL,
        actorType: 'apiKey',
        remoteAddress: '10.0.0.7',
        eventId: 'e-hand',
        viaOwnKey: true,
      },
    ]);
  });

  it("says nothing of a write of a run that saved the state after it (however long after the run's start)", async () => {
    // lastReconciledAt is the plan's time: a saved plan applied two hours later writes long after it, then saves.
    const { api } = eventsApi([own('e-late-apply', '2026-10-14T08:18:00Z')]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T06:00:00Z', options);
    expect(change.drift?.attribution).toBeUndefined();
  });

  it("says nothing within the clock margin of the save, or when the state's save time is unknown", async () => {
    const { api } = eventsApi([own('e-skew', '2026-10-14T08:24:00Z')]);
    const near = drifted();
    await attributeDrift(api, [near], '2026-10-14T08:00:05Z', options);
    expect(near.drift?.attribution).toBeUndefined();
    const unknown = drifted();
    await attributeDrift(api, [unknown], '2026-10-14T08:00:05Z', { ignoreActor: TOOL });
    expect(unknown.drift?.attribution).toBeUndefined();
  });

  it('says nothing of our own key on a config that does not converge (Ops Manager keeps it otherwise)', async () => {
    const { api } = eventsApi([own('e-run', '2026-10-14T09:30:00Z')]);
    const change = drifted();
    const records = {
      disk: {
        id: CONFIG,
        notConverging: { since: '2026-10-14T09:30:00Z', fields: ['enabled'], desiredDigest: 'd' },
      },
    } satisfies Record<string, OwnedAlertConfig>;
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', { ...options, records });
    expect(change.drift?.attribution).toBeUndefined();
  });

  it("an event with our public key that names a user by userId alone is that user's, not ours", async () => {
    const user = '5f0000000000000000000999';
    const edit = event({ id: 'e-user', created: '2026-10-14T09:30:00Z', username: undefined, userId: user });
    const { api } = eventsApi([{ ...edit, publicKey: TOOL }]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', options);
    expect(change.drift?.attribution?.map((a) => [a.actor, a.actorType, a.viaOwnKey])).toEqual([
      [user, 'user', undefined],
    ]);
  });

  it("another actor's event after ours is the author, not our key", async () => {
    const { api } = eventsApi([
      own('e-hand', '2026-10-14T09:30:00Z'),
      event({ id: 'e-jdoe', created: '2026-10-14T09:40:00Z' }),
    ]);
    const change = drifted();
    await attributeDrift(api, [change], '2026-10-14T08:00:05Z', options);
    expect(change.drift?.attribution?.map((a) => [a.eventId, a.viaOwnKey])).toEqual([['e-jdoe', undefined]]);
  });
});

describe('attributeDrift: the window without lastReconciledAt', () => {
  it('has no lower bound when one drifted object has no remembered write, whatever the others have', async () => {
    const { api, queries } = eventsApi([]);
    const records = { disk: { id: CONFIG, createdAt: '2026-10-14T08:00:00Z' } } satisfies Record<
      string,
      OwnedAlertConfig
    >;
    const serverType: Change = { ...drifted(), kind: 'defaultServerType', key: 'defaultServerType', id: undefined };
    delete serverType.id;
    await attributeDrift(api, [drifted(), serverType], undefined, { records });
    expect(queries).toHaveLength(1);
    expect(queries[0]?.minDate).toBeUndefined();
  });
});
