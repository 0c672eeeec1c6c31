// Scenario: a run stopped by its signal (the CLI's Ctrl-C, a Lambda out of time) over real HTTP: an apply stopped
// after a few creates finishes the writes in flight, reports every other write as not started, saves a state without
// stale pending-create markers, releases the lease, and the next apply converges with no duplicate; a plan stopped
// writes nothing, and abandons the reads Ops Manager does not answer at once (apply --plan too); a run stopped while
// waiting for someone else's lease stops waiting and
// says it was stopped (INTERRUPTED), naming the holder.
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeaseHeldError, LeaseWaitInterruptedError } from '../../../lambdas/core/errors.ts';
import { INTERRUPTED_MESSAGE, RunInterruptedError } from '../../../lambdas/core/interrupt.ts';
import type { ReconcileState } from '../../../lambdas/core/ports.ts';
import { hasWrites } from '../../../lambdas/core/render/summary.ts';
import type { RunRequest } from '../../../lambdas/core/run-types.ts';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { EmulatorWorld, KEYS } from '../../helpers/reconcile-emulator.ts';

let world: EmulatorWorld;
beforeEach(async () => {
  world = await EmulatorWorld.start();
});
afterEach(async () => {
  await world.close();
});

/** A client that aborts `stop` once `after` POSTs have been answered. */
function stoppingClient(stop: AbortController, after: number) {
  let posts = 0;
  return createOpsManagerClient({
    baseUrl: world.url,
    publicKey: 'gitopsbt',
    privateKey: KEYS.gitopsbt,
    observer: {
      onRequest: (e) => {
        if (e.method === 'POST' && ++posts === after) stop.abort('stopped by the test');
      },
    },
  });
}

async function savedState(): Promise<ReconcileState> {
  return JSON.parse(await readFile(join(world.dir, 'state', 'state.json'), 'utf8')) as ReconcileState;
}

describe('a stopped apply', () => {
  it('finishes what is in flight, skips the rest, saves state, releases the lease; the next apply converges', async () => {
    const planned = await world.run('plan');
    const writes = planned.plan.changes.filter((c) =>
      ['create', 'update', 'enable', 'disable', 'delete', 'adopt'].includes(c.action),
    );
    await world.admin('DELETE', 'requests');
    const stop = new AbortController();
    const client = stoppingClient(stop, 3);
    let report: Awaited<ReturnType<typeof world.run>>;
    try {
      report = await world.run('apply', { signal: stop.signal }, world.deps(client));
    } finally {
      await client.close();
    }

    const notStarted = report.results.filter((r) => r.status === 'skipped' && r.message === INTERRUPTED_MESSAGE);
    expect(notStarted.length).toBeGreaterThan(0);
    expect(report.interrupted).toEqual({ reason: 'stopped by the test', notStarted: notStarted.length });
    expect(report.warnings?.[0]).toMatch(
      /^INTERRUPTED \(stopped by the test\): \d+ planned write\(s\) not started; the writes in flight finished, the state was saved and the lock released$/,
    );
    // Every write Ops Manager received is reported as applied, and none of the skipped ones was sent.
    const sent = await world.writes();
    const applied = report.results.filter((r) => r.status === 'applied' && r.change.action !== 'adopt');
    expect(sent.length).toBe(applied.length);
    expect(sent.length).toBeLessThan(writes.length);
    expect(report.summary.failed).toBe(0);

    // No marker is left for a create that was never sent; every create that was sent is owned.
    const state = await savedState();
    const records = Object.values(state.projects).flatMap((p) => Object.values(p.alertConfigs));
    expect(records.filter((r) => r.pendingCreate !== undefined)).toEqual([]);
    const created = report.results.filter((r) => r.status === 'applied' && r.change.action === 'create');
    for (const r of created) expect(state.projects[r.change.target.id]?.alertConfigs[r.change.key]?.id).toBe(r.id);

    // The lease was released: the next apply starts at once, writes exactly what was left, and converges.
    await world.admin('DELETE', 'requests');
    const next = await world.run('apply');
    expect(next.summary.failed).toBe(0);
    const left = new Set(notStarted.map((r) => `${r.change.target.id}/${r.change.kind}/${r.change.key}`));
    const nextWrites = next.results.filter((r) => r.status === 'applied');
    expect(new Set(nextWrites.map((r) => `${r.change.target.id}/${r.change.kind}/${r.change.key}`))).toEqual(left);
    expect(hasWrites((await world.run('plan')).plan)).toBe(false);
  });
});

describe('a stopped plan', () => {
  it('throws RunInterruptedError, sends nothing, and an apply stopped while planning releases its lease', async () => {
    const stop = new AbortController();
    stop.abort('Ctrl-C (SIGINT)');
    await world.admin('DELETE', 'requests');
    for (const command of ['plan', 'apply'] as const) {
      const error = await world.run(command, { signal: stop.signal }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunInterruptedError);
      expect(error).toMatchObject({
        code: 'INTERRUPTED',
        message: 'the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written',
      });
    }
    const log = (await world.admin('GET', 'requests')) as { total: number };
    expect(log.total).toBe(0);
    const after = await world.run('apply');
    expect(after.summary.failed).toBe(0);
  });
});

describe('a run stopped while Ops Manager does not answer its reads', () => {
  /** Every project's alert-config list waits a minute: longer than any test may take, shorter than the deadline. */
  async function hangAlertReads(): Promise<void> {
    await world.admin('POST', 'faults', {
      method: 'GET',
      path: '/groups/*/alertConfigs',
      latencyMs: 60_000,
      times: 1_000,
    });
  }

  /**
   * Runs `command` and stops it as soon as a read has waited 200 ms for its answer (the client's stall notice), so the
   * reads are surely in flight; resolves to its rejection and how long it took to end after the stop.
   */
  async function stopped(command: 'plan' | 'apply', extra: Partial<RunRequest> = {}) {
    const stop = new AbortController();
    let stoppedAt = 0;
    const client = createOpsManagerClient({
      baseUrl: world.url,
      publicKey: 'gitopsbt',
      privateKey: KEYS.gitopsbt,
      stallAfterMs: 200,
      observer: {
        onRequest: () => undefined,
        onStall: () => {
          if (stop.signal.aborted) return;
          stoppedAt = Date.now();
          stop.abort('Ctrl-C (SIGINT)');
        },
      },
    });
    try {
      const error = await world
        .run(command, { signal: stop.signal, ...extra }, world.deps(client))
        .catch((e: unknown) => e);
      return { error, ms: Date.now() - stoppedAt, stopped: stoppedAt > 0 };
    } finally {
      await client.close();
    }
  }

  it.each(['plan', 'apply'] as const)(
    '%s: abandons the reads in flight, writes nothing, leaves no lease',
    async (command) => {
      await hangAlertReads();
      await world.admin('DELETE', 'requests');
      const { error, ms } = await stopped(command);
      expect(error).toBeInstanceOf(RunInterruptedError);
      expect((error as Error).message).toBe(
        'the run was stopped while planning (Ctrl-C (SIGINT)): nothing was written',
      );
      // The reads wait 60 s: the run ended because they were abandoned, not because they were answered.
      expect(ms).toBeLessThan(10_000);
      expect(await world.writes()).toEqual([]);
      await expect(access(join(world.dir, 'state', 'lease.json'))).rejects.toMatchObject({ code: 'ENOENT' });
      await world.admin('DELETE', 'faults');
      expect((await world.run('apply')).summary.failed).toBe(0);
    },
  );

  it('apply --plan: a stop while the saved plan is re-read is an interruption, not a stale plan', async () => {
    const { plan } = await world.run('plan');
    await hangAlertReads();
    await world.admin('DELETE', 'requests');
    const { error, ms, stopped: wasStopped } = await stopped('apply', { savedPlan: plan });
    expect(wasStopped).toBe(true);
    expect(error).toBeInstanceOf(RunInterruptedError);
    expect(ms).toBeLessThan(10_000);
    expect(await world.writes()).toEqual([]);
  });
});

describe('a run stopped while waiting for a lease', () => {
  // Was LeaseHeldError (exit 1, "another run holds the lease ... waited N ms"): the stop is what ended the run, so it
  // is an interruption (exit 130 in the CLI) that still names the holder; the refusal met stays in `held`.
  it('stops waiting: interrupted, naming who holds the lock, nothing written', async () => {
    const deps = world.deps();
    await deps.state.acquireLease({ owner: 'someone-else', runId: 'r-1', ttlMs: 600_000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort('stopped by the test'), 100);
    const started = Date.now();
    const error = await world
      .run('apply', { signal: stop.signal, leaseWaitMs: 600_000 }, deps)
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(LeaseWaitInterruptedError);
    const stoppedWaiting = error as LeaseWaitInterruptedError;
    expect(stoppedWaiting.code).toBe('INTERRUPTED');
    expect(stoppedWaiting.message).toMatch(
      /^the run was stopped while waiting for the lock held by someone-else \(run r-1, expires \S+\) \(stopped by the test, after waiting \d+ ms\): nothing was written$/,
    );
    expect(stoppedWaiting.held).toBeInstanceOf(LeaseHeldError);
    expect(stoppedWaiting.holder).toMatchObject({ owner: 'someone-else', runId: 'r-1' });
    expect(await world.writes()).toEqual([]);
  });

  it('a run stopped before its first attempt meets a held lease: interrupted too, not a plain refusal', async () => {
    const deps = world.deps();
    await deps.state.acquireLease({ owner: 'someone-else', runId: 'r-1', ttlMs: 600_000 });
    const stop = new AbortController();
    stop.abort('stopped by the test');
    const error = await world.run('apply', { signal: stop.signal }, deps).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LeaseWaitInterruptedError);
    expect((error as Error).message).toMatch(
      /^the run was stopped while waiting for the lock held by someone-else \(run r-1, expires \S+\) \(stopped by the test[,)]/,
    );
  });
});

describe('a lost create that landed late, its key edited in git before the next run', () => {
  it('is blocked naming the landed config, never created a second time; the previous body back adopts it', async () => {
    const PROD = '5e2211c17a3e5a48f5497de3';
    const key = 'host-ssl-certificate-stale';
    await world.run('apply');
    // What a run killed after its POST landed leaves: the key's record is only the marker saved before the POST (with
    // the digest of the body sent), and the config it made is in Ops Manager, owned by no record.
    const stateFile = join(world.dir, 'state', 'state.json');
    const state = await world.storedState();
    const made = state.projects[PROD]?.alertConfigs[key];
    if (made?.id === undefined || made.appliedDigest === undefined) throw new Error('the first apply made no record');
    (state.projects[PROD] as NonNullable<(typeof state.projects)[string]>).alertConfigs[key] = {
      pendingCreate: { runId: 'killed-run', startedAt: made.createdAt ?? '', desiredDigest: made.appliedDigest },
    };
    await writeFile(stateFile, JSON.stringify(state));
    const edit = (from: string, to: string) => world.editDesired('projects/payments.yaml', (t) => t.replace(from, to));
    const before = '{ typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 1440, delayMin: 0 }';
    const after = '{ typeName: EMAIL, emailAddress: dba-team@acme.example, intervalMin: 720, delayMin: 0 }';
    await edit(before, after);

    const held = await world.run('apply');
    const change = held.plan.changes.find((c) => c.target.id === PROD && c.key === key);
    expect(change?.action).toBe('blocked');
    expect(change?.reason).toContain(
      `a create of this key was interrupted (run killed-run) and landed late: unmanaged alert config ${made.id} equals what it sent`,
    );
    const ssl = async () =>
      (await world.client().listAlertConfigs(PROD)).filter((c) => c.eventTypeName === 'HOST_SSL_CERTIFICATE_STALE');
    expect((await ssl()).map((c) => c.id)).toEqual([made.id]);
    // The marker stays, so the way out the reason names works: the previous body back adopts the landed config.
    await edit(after, before);
    const adopted = await world.run('apply');
    expect(adopted.plan.changes.find((c) => c.target.id === PROD && c.key === key)).toMatchObject({
      action: 'adopt',
      id: made.id,
    });
    expect((await ssl()).map((c) => c.id)).toEqual([made.id]);
  });
});
