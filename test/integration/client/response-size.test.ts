// Scenario: a server behind real Digest auth answers a body over the client's maxResponseBytes (announced by
// Content-Length, or chunked without end); the request fails at once with a clear error that names it, the limit
// and what arrived, is not retried, and the connection is closed; a body of exactly the limit passes.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AmbiguousWriteError,
  type ClientOptions,
  createOpsManagerClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  OpsManagerResponseTooLargeError,
} from '../../../lambdas/opsman/index.ts';
import type { ScriptedReply } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const LIMIT = 64 * 1024;
const TEAM = '/orgs/{orgId}/teams/{teamId}';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Digest server whose authenticated requests get `reply`, and a client with a 64 KiB limit. */
async function setup(reply: () => ScriptedReply, extra: Partial<ClientOptions> = {}) {
  let answered = 0;
  const handler = () => {
    answered += 1;
    return reply();
  };
  const world = await scriptedClient(handler, cleanups, { maxResponseBytes: LIMIT, ...extra });
  return { ...world, answered: () => answered };
}

/** A team of exactly `bytes` bytes of JSON. */
function teamOf(bytes: number): string {
  const head = '{"id":"t1","name":"';
  const tail = '"}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** Resolves when the response's connection is closed (by the client: the server never ends these bodies). */
function closedOf(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => res.socket?.once('close', () => resolve()));
}

describe('maxResponseBytes', () => {
  it('defaults to 32 MiB', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(32 * 1024 * 1024);
  });

  it('refuses a body whose Content-Length announces more than the limit, before reading it, and closes the connection', async () => {
    let closed: Promise<void> | undefined;
    const { client, clock, observer, answered } = await setup(() => ({
      respond: (res) => {
        closed = closedOf(res);
        // Announces 2 GB, sends a few bytes, then nothing: only the announcement can end this quickly.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * 1024 ** 3) });
        res.write('{"id":"t1"');
      },
    }));
    const started = Date.now();
    const error = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseTooLargeError);
    expect(error).toMatchObject({
      code: 'OPSMAN_RESPONSE_TOO_LARGE',
      method: 'GET',
      pathTemplate: TEAM,
      status: 200,
      limitBytes: LIMIT,
      receivedBytes: 0,
      announcedBytes: 2 * 1024 ** 3,
    });
    const message = (error as Error).message;
    expect(message).toContain(`GET ${TEAM}`);
    expect(message).toContain('65,536 bytes');
    expect(message).toContain('Content-Length announced 2,147,483,648 bytes');
    expect(message).not.toContain('127.0.0.1');
    expect(message).not.toContain(TEST_PRIVATE_KEY);
    expect(JSON.stringify(error)).not.toContain(TEST_PRIVATE_KEY);
    // Not retried: one answer, no backoff, one attempt observed.
    expect(answered()).toBe(1);
    expect(clock.sleeps).toEqual([]);
    expect(observer.events).toEqual([expect.objectContaining({ pathTemplate: TEAM, status: 200, attempts: 1 })]);
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('cuts off a chunked body that never ends as soon as it passes the limit, and closes the connection', async () => {
    let written = 0;
    let closed: Promise<void> | undefined;
    const rssBefore = process.memoryUsage().rss;
    const { client, answered } = await setup(() => ({
      respond: (res) => {
        closed = closedOf(res);
        res.writeHead(200, { 'content-type': 'application/json' }); // no length: chunked
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        let open = true;
        res.socket?.once('close', () => {
          open = false;
        });
        // Endless, but honouring back-pressure: it writes only what the client reads (plus socket buffers).
        const pump = (): void => {
          while (open) {
            written += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
        };
        res.write('[');
        pump();
      },
    }));
    const started = Date.now();
    const error = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseTooLargeError);
    const tooLarge = error as OpsManagerResponseTooLargeError;
    expect(tooLarge).toMatchObject({ pathTemplate: TEAM, limitBytes: LIMIT, announcedBytes: undefined });
    expect(tooLarge.receivedBytes).toBeGreaterThan(LIMIT);
    expect(tooLarge.receivedBytes).toBeLessThanOrEqual(LIMIT + 64 * 1024);
    expect(tooLarge.message).toContain(`${tooLarge.receivedBytes.toLocaleString('en-US')} bytes had arrived`);
    await closed;
    expect(answered()).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    // The server stopped writing when the client closed: what it wrote is the limit plus socket buffers, not more.
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
  });

  it('passes a body of exactly the limit, with Content-Length and chunked', async () => {
    const text = teamOf(LIMIT);
    expect(Buffer.byteLength(text)).toBe(LIMIT);
    let chunked = false;
    const { client } = await setup(() => ({
      respond: (res) => {
        if (chunked) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(text.slice(0, 1000));
          res.end(text.slice(1000));
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LIMIT) });
          res.end(text);
        }
      },
    }));
    expect((await client.getTeam('o1', 't1')).name).toHaveLength(LIMIT - 21);
    chunked = true;
    expect((await client.getTeam('o1', 't1')).name).toHaveLength(LIMIT - 21);
  });

  it('fails a body of one byte over the limit, chunked or announced by Content-Length', async () => {
    const text = teamOf(LIMIT + 1);
    let announced = false;
    const { client } = await setup(() => ({
      respond: (res) => {
        if (announced) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) });
          res.end(text);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(text.slice(0, 1000));
        res.end(text.slice(1000));
      },
    }));
    const error = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'OpsManagerResponseTooLargeError', receivedBytes: LIMIT + 1 });
    announced = true;
    const refused = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(refused).toMatchObject({
      name: 'OpsManagerResponseTooLargeError',
      receivedBytes: 0,
      announcedBytes: LIMIT + 1,
    });
  });

  it('a POST whose applied answer is too large is an AmbiguousWriteError: the caller re-reads before writing again', async () => {
    const { client, answered } = await setup(() => ({ status: 201, text: teamOf(LIMIT * 2) }));
    const body = { eventTypeName: 'HOST_DOWN', notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'] }] };
    const error = await client.createAlertConfig('g1', body).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousWriteError);
    expect((error as AmbiguousWriteError).cause).toBeInstanceOf(OpsManagerResponseTooLargeError);
    expect((error as Error).message).toBe(
      'POST /groups/{groupId}/alertConfigs: the answer (201) was too large to read; it may or may not have been applied',
    );
    expect(answered()).toBe(1);
  });

  it('rejects a limit outside 1 byte to 256 MiB', () => {
    const base = { baseUrl: 'http://127.0.0.1:1/api/public/v1.0', publicKey: 'p', privateKey: 'k' };
    expect(() => createOpsManagerClient({ ...base, maxResponseBytes: 0 })).toThrow(/maxResponseBytes/);
    expect(() => createOpsManagerClient({ ...base, maxResponseBytes: 512 * 1024 * 1024 })).toThrow(/maxResponseBytes/);
  });
});
