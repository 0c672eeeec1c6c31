// Scenario: the state session merges a conflicting write per target, the held lease renews at half-life, attribution names users and keys.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsStateStore } from '../../../lambdas/adapters/local/state-fs.ts';
import { eventsSince, toAttribution } from '../../../lambdas/core/attribution.ts';
import { StateConflictError, StateCorruptError, StateTooNewError } from '../../../lambdas/core/errors.ts';
import { acquireLease } from '../../../lambdas/core/lease.ts';
import type { StateStore } from '../../../lambdas/core/ports.ts';
import { emptyState } from '../../../lambdas/core/state.ts';
import { StateSession } from '../../../lambdas/core/state-save.ts';
import { MemoryStateStore, TestClock } from '../../helpers/reconcile-world.ts';

describe('StateSession', () => {
  it('on a conflict, keeps the other writer’s projects and carries over the ones this run touched', async () => {
    const store = new MemoryStateStore(new TestClock());
    await store.write({ ...emptyState('t0'), projects: { a: { alertConfigs: { x: { id: '1' } } } } }, null);
    const session = await StateSession.open(store, 't1');
    session.state.projects.b = { alertConfigs: { y: { id: '2' } } };
    session.touched.add('project:b');
    // Someone else writes project c meanwhile.
    const { version } = await store.read();
    await store.write(
      {
        ...emptyState('t2'),
        projects: { a: { alertConfigs: { x: { id: '1' } } }, c: { alertConfigs: { z: { id: '3' } } } },
      },
      version,
    );
    await session.save({ now: 't3', runId: 'r', mode: 'apply' });
    const saved = store.state;
    expect(Object.keys(saved?.projects ?? {}).sort()).toEqual(['a', 'b', 'c']);
    expect(saved?.lastRun).toEqual({ runId: 'r', finishedAt: 't3', mode: 'apply' });
  });

  it('on a conflict, carries over the organizations this run touched and stamps the run over the other writer’s', async () => {
    const store = new MemoryStateStore(new TestClock());
    await store.write({ ...emptyState('t0'), organizations: { o1: { singletons: { s: 'old' } } } }, null);
    const session = await StateSession.open(store, 't1');
    (session.state.organizations ?? {}).o1 = { singletons: { s: 'ours' } };
    session.touched.add('organization:o1');
    // Someone else writes organization o2 and its own lastRun meanwhile.
    const { version } = await store.read();
    await store.write(
      {
        ...emptyState('t2'),
        organizations: { o1: { singletons: { s: 'old' } }, o2: { singletons: { s: 'theirs' } } },
        lastRun: { runId: 'other', finishedAt: 't2', mode: 'apply' },
      },
      version,
    );
    await session.save({ now: 't3', runId: 'r', mode: 'apply' });
    const saved = store.state;
    expect(saved?.organizations).toEqual({ o1: { singletons: { s: 'ours' } }, o2: { singletons: { s: 'theirs' } } });
    expect(saved?.lastRun).toEqual({ runId: 'r', finishedAt: 't3', mode: 'apply' });
    expect(saved?.updatedAt).toBe('t3');
  });

  it('gives up after the attempts it is given when every write conflicts', async () => {
    const inner = new MemoryStateStore(new TestClock());
    let writes = 0;
    const store = {
      read: () => inner.read(),
      write: async (_state: unknown, version: string | null) => {
        writes++;
        throw new StateConflictError(version, `v-other-${writes}`);
      },
    } as unknown as StateStore;
    const session = await StateSession.open(store, 't1');
    const error = await session.save({ now: 't2', runId: 'r', mode: 'apply' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateConflictError);
    expect(writes).toBe(3);
  });

  // STATE_TOO_NEW promises that a newer version's state is never overwritten: the conflict path re-reads the state,
  // and a re-read that finds a newer format must stop the save, not be taken for "no state" and written over.
  it('on a conflict with a state of a newer format, refuses to save (STATE_TOO_NEW) and leaves it as it is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'session-newer-'));
    try {
      const store = new FsStateStore(dir);
      await store.write({ ...emptyState('t0'), projects: { a: { alertConfigs: { x: { id: '1' } } } } }, null);
      const session = await StateSession.open(store, 't1');
      session.state.projects.b = { alertConfigs: { y: { id: '2' } } };
      session.touched.add('project:b');
      const newer = '{"formatVersion":2,"updatedAt":"t2","projects":{},"owners":{}}\n';
      await writeFile(join(dir, 'state.json'), newer);
      const error = await session.save({ now: 't3', runId: 'r', mode: 'apply' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateTooNewError);
      expect(await readFile(join(dir, 'state.json'), 'utf8')).toBe(newer);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('StateSession on a conflict whose re-read fails', () => {
  /** A memory store whose first write conflicts (another writer) and whose reads then fail with `readError`. */
  function conflictingStore(readError: Error) {
    const store = new MemoryStateStore(new TestClock());
    const writes: unknown[] = [];
    let reads = 0;
    return {
      writes,
      store: {
        ...store,
        read: async () => {
          reads++;
          if (reads > 1) throw readError;
          return store.read();
        },
        write: async (state: unknown, version: string | null) => {
          writes.push(state);
          if (writes.length === 1) throw new StateConflictError(version, 'v-other');
          return 'v-ours';
        },
      } as unknown as StateStore,
    };
  }

  it('a store failing to read: the save fails and nothing is written over the other writer’s state', async () => {
    const { store, writes } = conflictingStore(new Error('S3 is down'));
    const session = await StateSession.open(store, 't1');
    session.touched.add('project:b');
    await expect(session.save({ now: 't2', runId: 'r', mode: 'apply' })).rejects.toThrow('S3 is down');
    expect(writes).toHaveLength(1);
  });

  it('a corrupt state: replaced by this run’s, as open() replaces one', async () => {
    const { store, writes } = conflictingStore(new StateCorruptError('state is not JSON', 'v-corrupt'));
    const session = await StateSession.open(store, 't1');
    await session.save({ now: 't2', runId: 'r', mode: 'apply' });
    expect(writes).toHaveLength(2);
  });

  it('a corrupt state: written over at the version the re-read reported, not the conflict’s (a write since)', async () => {
    const versions: (string | null)[] = [];
    let reads = 0;
    const store = {
      read: async () => {
        reads++;
        if (reads > 1) throw new StateCorruptError('state is not JSON', 'v-corrupt');
        return { state: null, version: null };
      },
      write: async (_state: unknown, version: string | null) => {
        versions.push(version);
        if (version !== 'v-corrupt') throw new StateConflictError(version, 'v-stale');
        return 'v-ours';
      },
    } as unknown as StateStore;
    const session = await StateSession.open(store, 't1');
    await session.save({ now: 't2', runId: 'r', mode: 'apply' });
    expect(versions).toEqual([null, 'v-corrupt']);
  });
});

describe('StateSession.open on a corrupt state', () => {
  it('starts empty, marked corrupt, at the corrupt document’s version: a plan is made against it, a save replaces it', async () => {
    const versions: (string | null)[] = [];
    const store = {
      read: async () => Promise.reject(new StateCorruptError('state is not JSON', 'v-corrupt')),
      write: async (_state: unknown, version: string | null) => {
        versions.push(version);
        if (version !== 'v-corrupt') throw new StateConflictError(version, 'v-corrupt');
        return 'v-ours';
      },
    } as unknown as StateStore;
    const session = await StateSession.open(store, 't1');
    expect(session.loaded).toMatchObject({ corrupt: true, existed: false, corruptMessage: 'state is not JSON' });
    expect(session.openedVersion).toBe('v-corrupt');
    await session.save({ now: 't2', runId: 'r', mode: 'apply' });
    expect(versions).toEqual(['v-corrupt']);
  });
});

describe('lease renewal', () => {
  it('renews only when less than half of the lifetime is left', async () => {
    const clock = new TestClock();
    const store = new MemoryStateStore(clock);
    const held = await acquireLease(
      store,
      clock,
      { owner: 'o', runId: 'r', waitMs: 0 },
      { ttlMs: 1_000, retryEveryMs: 10 },
    );
    const first = held.lease.expiresAt;
    await held.keepAlive();
    expect(held.lease.expiresAt).toBe(first);
    clock.ms += 600;
    await held.keepAlive();
    expect(Date.parse(held.lease.expiresAt)).toBeGreaterThan(Date.parse(first));
    await held.release();
    expect(store.lease).toBeNull();
  });
});

describe('attribution', () => {
  const cases = [
    {
      event: {
        id: 'e1',
        created: 't',
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        username: 'j.doe@example.com',
        publicKey: 'k',
      },
      actor: 'j.doe@example.com',
      actorType: 'user',
    },
    {
      event: {
        id: 'e2',
        created: 't',
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        publicKey: 'jdoekey1',
        remoteAddress: '10.0.0.1',
      },
      actor: 'jdoekey1',
      actorType: 'apiKey',
    },
    {
      event: { id: 'e3', created: 't', eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT' },
      actor: 'unknown',
      actorType: 'unknown',
    },
  ] as const;
  for (const c of cases) {
    it(`${c.actorType} actor`, () => {
      expect(toAttribution(c.event)).toMatchObject({ actor: c.actor, actorType: c.actorType, eventId: c.event.id });
    });
  }

  it('moves the lower bound back by the clock-skew allowance (5 minutes) and floors it to the second', () => {
    expect(eventsSince('2026-03-01T10:00:00.800Z')).toBe('2026-03-01T09:55:00Z');
    expect(eventsSince(undefined)).toBeUndefined();
    expect(eventsSince('garbage')).toBeUndefined();
  });
});
