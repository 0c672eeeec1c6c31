// Scenario: requests made through a client's signal-bound view (withSignal) end at once when the signal aborts, against
// a server that never answers: in flight, queued behind the concurrency cap, waiting for another request's challenge
// or in a backoff wait; nothing queued is ever sent, a signed POST stopped in flight is ambiguous, and the client
// itself and its other requests are not stopped. A stop-waiting view (withStopWaiting, an apply's writes) ends a request
// only where it waits: a POST on the wire gets its answer; one waiting out a 429 ends unsent, a PUT after a 503 as
// possibly applied.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AmbiguousWriteError,
  type ClientClock,
  type ClientOptions,
  createOpsManagerClient,
  OpsManagerAbortedError,
  type OpsManagerClient,
} from '../../../lambdas/opsman/index.ts';
import { SYSTEM_CLOCK } from '../../../lambdas/opsman/options.ts';
import { type ScriptedReply, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { eventually, startHungServer } from '../../helpers/hung-server.ts';

const GROUP = '5e2211c17a3e5a48f5497de3';
const BODY = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] };
/** Far beyond any bound a test checks: a request that ends early was stopped, not timed out. */
const LONG = { retry: { deadlineMs: 300_000 }, timeouts: { headersMs: 300_000 } };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function clientOf(baseUrl: string, extra: Partial<ClientOptions> = {}): OpsManagerClient {
  const client = createOpsManagerClient({
    baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    ...LONG,
    ...extra,
  });
  cleanups.push(() => client.close());
  return client;
}

async function hung() {
  const server = await startHungServer();
  cleanups.push(() => server.close());
  return server;
}

/** A Digest server whose authenticated requests on paths matching `hang` never get an answer. */
async function hangingOn(hang: RegExp, reply: ScriptedReply = { json: { results: [], links: [] } }) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => (hang.test(`${req.method} ${req.pathname}`) ? new Promise<never>(() => undefined) : reply),
  });
  cleanups.push(() => server.close());
  return server;
}

/** Settles `promise` into its rejection and the milliseconds it took from `from`. */
async function rejection(promise: Promise<unknown>, from: number): Promise<{ error: unknown; ms: number }> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - from };
}

describe('a signal-bound view', () => {
  it('ends a read that the server never answers as soon as the signal aborts', async () => {
    const server = await hung();
    const stop = new AbortController();
    const pending = clientOf(server.baseUrl).withSignal(stop.signal).listAlertConfigs(GROUP);
    await eventually(() => server.requests().length === 1, 'the request to arrive');
    const t0 = Date.now();
    stop.abort('Ctrl-C (SIGINT)');
    const { error, ms } = await rejection(pending, t0);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect(error).toMatchObject({
      code: 'OPSMAN_ABORTED',
      method: 'GET',
      pathTemplate: '/groups/{groupId}/alertConfigs',
      sent: false,
      message: 'GET /groups/{groupId}/alertConfigs: stopped (Ctrl-C (SIGINT)) before Ops Manager answered',
    });
    // The deadline and the headers timeout are 300 s: only the signal can have ended it.
    expect(ms).toBeLessThan(5_000);
  });

  it('never sends what waits for a slot or for the first challenge, and ends it too', async () => {
    const server = await hung();
    const stop = new AbortController();
    const view = clientOf(server.baseUrl, { maxConcurrency: 2 }).withSignal(stop.signal);
    // One request fetches the challenge, one waits for it holding a slot, two wait for a slot.
    const pending = [
      view.listAlertConfigs(GROUP),
      view.getTeam('o1', 't1'),
      view.getTeam('o1', 't2'),
      view.getTeam('o1', 't3'),
    ];
    await eventually(() => server.requests().length === 1, 'the first request to arrive');
    const t0 = Date.now();
    stop.abort('stopped by the test');
    const results = await Promise.all(pending.map((p) => rejection(p, t0)));
    for (const { error, ms } of results) {
      expect(error).toBeInstanceOf(OpsManagerAbortedError);
      expect((error as Error).message).toContain('stopped (stopped by the test) before Ops Manager answered');
      expect(ms).toBeLessThan(5_000);
    }
    expect(server.requests()).toEqual([`GET /api/public/v1.0/groups/${GROUP}/alertConfigs?pageNum=1&itemsPerPage=500`]);
  });

  it('sends nothing once the signal has aborted', async () => {
    const server = await hung();
    const stop = new AbortController();
    stop.abort('too late');
    const error = await clientOf(server.baseUrl)
      .withSignal(stop.signal)
      .getTeam('o1', 't1')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpsManagerAbortedError', sent: false });
    expect(server.connections()).toBe(0);
  });

  it('leaves the client itself and its other requests alone', async () => {
    const server = await hangingOn(/\/hang$/);
    const client = clientOf(server.baseUrl);
    await client.getTeam('o1', 'warm-up'); // caches the nonce: the next requests go out signed at once
    const stop = new AbortController();
    const stopped = client.withSignal(stop.signal).getTeam('o1', 'hang');
    const unbound = client.getTeam('o1', 'hang');
    let unboundSettled = false;
    const settled = unbound.then(
      () => {
        unboundSettled = true;
      },
      () => {
        unboundSettled = true;
      },
    );
    await eventually(() => server.log.filter((e) => e.url.endsWith('/hang')).length === 2, 'both requests');
    stop.abort('stopped by the test');
    await expect(stopped).rejects.toBeInstanceOf(OpsManagerAbortedError);
    // The same client, without the signal, still answers and still waits for its own request.
    expect(await client.getTeam('o1', 'fine')).toEqual({ results: [], links: [] });
    expect(unboundSettled).toBe(false);
    await server.close(); // its connection closes: the request without the signal ends too, and the client can close
    await settled;
  });

  it('reports a signed POST stopped in flight as an AmbiguousWriteError, and a PUT as possibly applied', async () => {
    const server = await hangingOn(/^(POST|PUT) /);
    const client = clientOf(server.baseUrl);
    await client.getTeam('o1', 'warm-up');
    const stop = new AbortController();
    const view = client.withSignal(stop.signal);
    const post = view.createAlertConfig(GROUP, BODY);
    const put = view.updateAlertConfig(GROUP, 'a1', BODY);
    await eventually(
      () => server.log.filter((e) => e.method !== 'GET' && e.authorization !== undefined).length === 2,
      'the signed writes to arrive',
    );
    stop.abort('stopped by the test');
    const postError = await post.catch((e: unknown) => e);
    expect(postError).toBeInstanceOf(AmbiguousWriteError);
    expect((postError as Error).cause).toMatchObject({ name: 'OpsManagerAbortedError', sent: true });
    expect((postError as Error).message).toBe(
      'POST /groups/{groupId}/alertConfigs: the run stopped after the request was sent, before Ops Manager answered; it may or may not have been applied',
    );
    const putError = await put.catch((e: unknown) => e);
    expect(putError).toMatchObject({
      name: 'OpsManagerAbortedError',
      sent: true,
      message:
        'PUT /groups/{groupId}/alertConfigs/{alertConfigId}: stopped (stopped by the test) before Ops Manager answered; the write may or may not have been applied',
    });
  });

  it('lets any number of requests wait on one signal without a listener warning', async () => {
    const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler: () => ({ json: {}, delayMs: 20 }) });
    cleanups.push(() => server.close());
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const view = clientOf(server.baseUrl).withSignal(new AbortController().signal);
      await Promise.all(Array.from({ length: 40 }, (_, i) => view.getTeam('o1', `t${i}`)));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('ends a backoff wait and sends no retry', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => ({ status: 503, headers: { 'retry-after': '60' } }),
    });
    cleanups.push(() => server.close());
    // Wait for the client's backoff itself, not for the server's log: the server logs the 503 before the answer has
    // reached the client, and a stop in that gap ends the signed request in flight (sent: true), not the backoff.
    const waits: number[] = [];
    const clock: ClientClock = {
      now: () => SYSTEM_CLOCK.now(),
      sleep: (ms, signal) => {
        waits.push(ms);
        return SYSTEM_CLOCK.sleep(ms, signal);
      },
    };
    const stop = new AbortController();
    const pending = clientOf(server.baseUrl, { clock }).withSignal(stop.signal).getTeam('o1', 't1');
    await eventually(() => waits.length > 0, 'the backoff wait');
    expect(waits).toEqual([60_000]);
    const t0 = Date.now();
    stop.abort('stopped by the test');
    const { error, ms } = await rejection(pending, t0);
    expect(error).toMatchObject({ name: 'OpsManagerAbortedError', sent: false });
    expect(ms).toBeLessThan(5_000);
    expect(server.log.filter((e) => e.status === 503)).toHaveLength(1);
  });
});

describe('a stop-waiting view (withStopWaiting: what an apply writes through)', () => {
  /** A clock that records each backoff wait, so the test stops the request in the wait, not in the gap before it. */
  function recordingClock(waits: number[]): ClientClock {
    return {
      now: () => SYSTEM_CLOCK.now(),
      sleep: (ms, signal) => {
        waits.push(ms);
        return SYSTEM_CLOCK.sleep(ms, signal);
      },
    };
  }

  it('never cuts a POST on the wire: it gets its answer, no ambiguous create', async () => {
    let received = 0;
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => {
        received += 1;
        return { status: 201, json: { id: 'c1', ...BODY }, delayMs: 500 };
      },
    });
    cleanups.push(() => server.close());
    const stop = new AbortController();
    const pending = clientOf(server.baseUrl).withStopWaiting(stop.signal).createAlertConfig(GROUP, BODY);
    await eventually(() => received > 0, 'the POST at the server');
    stop.abort('stopped by the test');
    await expect(pending).resolves.toMatchObject({ id: 'c1' });
  });

  it('ends a POST waiting out a 429 Retry-After: not sent again, sent false (Ops Manager refused it unprocessed)', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => ({ status: 429, headers: { 'retry-after': '60' } }),
    });
    cleanups.push(() => server.close());
    const waits: number[] = [];
    const stop = new AbortController();
    const pending = clientOf(server.baseUrl, { clock: recordingClock(waits) })
      .withStopWaiting(stop.signal)
      .createAlertConfig(GROUP, BODY);
    await eventually(() => waits.length > 0, 'the backoff wait');
    const t0 = Date.now();
    stop.abort('stopped by the test');
    const { error, ms } = await rejection(pending, t0);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect(error).toMatchObject({ sent: false });
    expect(ms).toBeLessThan(5_000);
    expect(server.log.filter((e) => e.status === 429)).toHaveLength(1);
  });

  it('ends a PUT waiting to retry after a 503 with sent true: the first attempt may have been applied', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => ({ status: 503, headers: { 'retry-after': '60' } }),
    });
    cleanups.push(() => server.close());
    const waits: number[] = [];
    const stop = new AbortController();
    const pending = clientOf(server.baseUrl, { clock: recordingClock(waits) })
      .withStopWaiting(stop.signal)
      .updateAlertConfig(GROUP, 'c1', BODY);
    await eventually(() => waits.length > 0, 'the backoff wait');
    stop.abort('stopped by the test');
    const { error } = await rejection(pending, Date.now());
    expect(error).toMatchObject({ name: 'OpsManagerAbortedError', sent: true });
    expect((error as Error).message).toContain('the write may or may not have been applied');
  });
});

describe('a stop-waiting view, a retry waiting for a slot', () => {
  it('ends a PUT retried after a 503 that waits for a slot with sent true: the first attempt may have been applied', async () => {
    // One slot: the PUT gets a 503, and while it sleeps out the Retry-After a read takes the slot and hangs; the PUT's
    // retry then waits for the slot, and is stopped there.
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) =>
        req.method === 'PUT' ? { status: 503, headers: { 'retry-after': '1' } } : new Promise<never>(() => undefined),
    });
    cleanups.push(() => server.close());
    let slept = 0;
    const clock: ClientClock = {
      now: () => SYSTEM_CLOCK.now(),
      sleep: async (ms, signal) => {
        const done = await SYSTEM_CLOCK.sleep(ms, signal);
        slept += 1;
        return done;
      },
    };
    const client = clientOf(server.baseUrl, { clock, maxConcurrency: 1 });
    const stop = new AbortController();
    const put = client.withStopWaiting(stop.signal).updateAlertConfig(GROUP, 'c1', BODY);
    await eventually(() => server.log.some((e) => e.status === 503), 'the 503');
    const read = client.getTeam('o1', 'hang').catch(() => undefined);
    await eventually(
      () => server.log.some((e) => e.url.endsWith('/hang') && e.authorization !== undefined),
      'the read',
    );
    await eventually(() => slept > 0, 'the backoff to end');
    stop.abort('stopped by the test');
    const { error } = await rejection(put, Date.now());
    expect(error).toMatchObject({ name: 'OpsManagerAbortedError', sent: true });
    expect((error as Error).message).toContain('the write may or may not have been applied');
    await server.close();
    await read;
  });
});

describe('a stop-waiting view, waiting for another request’s first challenge', () => {
  it('sends nothing and ends at once: the write had not left, so it never does', async () => {
    // The client's first request primes the Digest exchange (its answer takes 1.5 s); a write through the view waits
    // for that nonce, holding nothing on the wire, and is stopped in that wait.
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => (req.method === 'GET' ? { json: { results: [], links: [] }, delayMs: 1_500 } : { json: {} }),
    });
    cleanups.push(() => server.close());
    const client = clientOf(server.baseUrl);
    const priming = client.listAlertConfigs(GROUP);
    await eventually(() => server.log.length > 0, 'the priming request');
    const stop = new AbortController();
    const pending = client.withStopWaiting(stop.signal).createAlertConfig(GROUP, BODY);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the POST is now waiting for the nonce
    const t0 = Date.now();
    stop.abort('stopped by the test');
    const { error, ms } = await rejection(pending, t0);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect(error).toMatchObject({ sent: false });
    expect(ms).toBeLessThan(1_000); // not after the priming answer
    await priming;
    expect(server.log.filter((e) => e.method === 'POST')).toEqual([]);
  });
});

describe('an end-by view (withEndBy: every request of a Lambda run, ended in time to save its state)', () => {
  const REASON = 'the run must save its state before the test limit';

  it('cuts a signed POST on the wire at its end time: an ambiguous create, not a 300 s wait', async () => {
    const server = await hangingOn(/^POST /);
    const t0 = Date.now();
    const view = clientOf(server.baseUrl).withEndBy(new Date(t0 + 300), REASON);
    const { error, ms } = await rejection(view.createAlertConfig(GROUP, BODY), t0);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect(String((error as Error).cause)).toContain(REASON);
    expect(ms).toBeLessThan(5_000);
  });

  it('cuts a read in flight with the reason, and keeps the limit in the views made from it', async () => {
    const server = await hung();
    const t0 = Date.now();
    const view = clientOf(server.baseUrl)
      .withEndBy(new Date(t0 + 300), REASON)
      .withStopWaiting(new AbortController().signal);
    const { error, ms } = await rejection(view.getTeam('o1', 't1'), t0);
    expect(error).toBeInstanceOf(OpsManagerAbortedError);
    expect((error as Error).message).toContain(REASON);
    expect(ms).toBeLessThan(5_000);
  });

  it('starts no request past its end time, in a signal view made from it too: nothing is sent', async () => {
    const server = await hung();
    const ended = clientOf(server.baseUrl).withEndBy(new Date(Date.now() - 1), REASON);
    for (const view of [ended, ended.withSignal(new AbortController().signal)]) {
      const { error } = await rejection(view.createAlertConfig(GROUP, BODY), Date.now());
      expect(error).toMatchObject({ name: 'OpsManagerAbortedError', sent: false });
      expect((error as Error).message).toContain(REASON);
    }
    expect(server.requests()).toEqual([]);
  });

  it('does not wait out a backoff that would end past it: the last error stands, no retry is sent', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => ({ status: 503, headers: { 'retry-after': '60' } }),
    });
    cleanups.push(() => server.close());
    const t0 = Date.now();
    const view = clientOf(server.baseUrl).withEndBy(new Date(t0 + 2_000), REASON);
    const { error, ms } = await rejection(view.updateAlertConfig(GROUP, 'c1', BODY), t0);
    expect(error).toMatchObject({ name: 'OpsManagerApiError', status: 503 });
    expect(ms).toBeLessThan(1_500);
    expect(server.log.filter((e) => e.status === 503)).toHaveLength(1);
  });
});
