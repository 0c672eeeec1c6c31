// Scenario: the report's API-call count and the client's attempts agree with the emulator's own request log in a
// normal run, a run whose reads meet 503s (retried), and a run with a wrong key (refused: no API call made twice).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/reliability-harness.ts';

describe('API-call counts against the emulator request log', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ projects: 2, alerts: 2 });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The emulator's requests other than 401 challenges: each is one attempt the client sent. */
  async function sentPerEmulator(): Promise<{ attempts: number; challenges: number }> {
    const log = await h.admin.requests();
    return { attempts: log.total - log.challenges, challenges: log.challenges };
  }

  it('a normal run: one attempt per call, each seen by the emulator', async () => {
    await h.admin.clearRequests();
    const run = await h.run({ command: 'plan' });
    expect(run.error).toBeUndefined();
    const seen = await sentPerEmulator();
    expect(run.report?.apiCalls.total).toBe(run.counts.total);
    expect(run.counts.attempts).toBe(run.counts.total);
    expect(seen.attempts).toBe(run.counts.attempts);
  });

  it('a run with 503 retries: calls counted once, every attempt seen by the emulator', async () => {
    await h.admin.clearRequests();
    await h.admin.fault({ method: 'GET', path: '/groups/*/alertConfigs', status: 503, times: 2 });
    const run = await h.run({ command: 'plan' });
    await h.admin.clearFaults();
    expect(run.error).toBeUndefined();
    const seen = await sentPerEmulator();
    expect(run.report?.apiCalls.total).toBe(run.counts.total);
    expect(run.counts.attempts).toBe(run.counts.total + 2);
    expect(seen.attempts).toBe(run.counts.attempts);
  });

  it('a run with a wrong key: only the requests that reached the emulator are API calls', async () => {
    await h.admin.clearRequests();
    const run = await h.run({ command: 'plan' }, { privateKey: '00000000-0000-0000-0000-000000000000' });
    const seen = await sentPerEmulator();
    // Each sent request met two 401s, both challenges to the emulator: the unsigned one and the refused signed one.
    expect(seen).toEqual({ attempts: 0, challenges: 2 * run.counts.attempts });
    expect(run.counts.attempts).toBe(run.counts.total);
    // Every request that reached the emulator is in the report: none was still in flight when it was made.
    expect(run.report?.apiCalls.total).toBe(run.counts.total);
  });
});
