// Scenario: a Digest-protected loopback server answers 2xx with a body that is no JSON (compressed unasked, a login proxy's HTML page, binary with terminal escapes, JSON followed by garbage, cut short); the client fails the read naming the route and what was wrong, with only printable characters in the message.
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type OpsManagerClient, OpsManagerResponseError } from '../../../lambdas/opsman/index.ts';
import type { ScriptedReply } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The version manifest is read without credentials. */
const UNAUTH = { publicPaths: ['/api/public/v1.0/unauth/'] };

async function clientAnswering(reply: ScriptedReply) {
  return (await scriptedClient(() => reply, cleanups, {}, UNAUTH)).client;
}

/** A 200 whose body is `bytes`, sent as is with the given headers. */
function bytesReply(bytes: Buffer, headers: Record<string, string>): ScriptedReply {
  return {
    respond: (res) => {
      res.writeHead(200, { 'content-length': String(bytes.length), ...headers });
      res.end(bytes);
    },
  };
}

const READS: [string, (c: OpsManagerClient) => Promise<unknown>][] = [
  ['GET /groups/{groupId}/alertConfigs: the list response is not JSON (', (c) => c.listAlertConfigs('g1')],
  ['GET /orgs/{orgId}/teams/{teamId}: the response is not JSON (', (c) => c.getTeam('o1', 't1')],
  ['GET /unauth/versionManifest: the manifest served is not JSON: ', (c) => c.getVersionManifest()],
];

async function messages(reply: ScriptedReply): Promise<string[]> {
  const client = await clientAnswering(reply);
  const out: string[] = [];
  for (const [prefix, read] of READS) {
    const error = await read(client).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpsManagerResponseError);
    const message = (error as Error).message;
    expect(message.startsWith(prefix)).toBe(true);
    expect(message).toMatch(/^[\x20-\x7e]*$/);
    expect(message).not.toContain(TEST_PRIVATE_KEY);
    out.push(message.slice(prefix.length));
  }
  return out;
}

describe('a 2xx body that is no JSON', () => {
  it('gzip sent unasked is named as such, not quoted as binary', async () => {
    const gz = gzipSync(JSON.stringify({ results: [], links: [], totalCount: 0 }));
    for (const why of await messages(
      bytesReply(gz, { 'content-encoding': 'gzip', 'content-type': 'application/json' }),
    )) {
      expect(why).toMatch(/^its body is gzip-encoded \(Content-Encoding\), which the client never asks for/);
    }
  });

  it.each([
    ['text/html', '<p>Sign in</p>'],
    ['text/plain', '<!DOCTYPE html><html><title>Sign in</title></html>'],
    ['application/json', '\n  <html><body>Sign in</body></html>'],
  ])('a login page (%s) answered 200 is named an HTML page', async (type, html) => {
    for (const why of await messages(bytesReply(Buffer.from(html), { 'content-type': type }))) {
      expect(why).toMatch(
        /^it is an HTML page: a login gateway or another web server answered in place of the Public API/,
      );
    }
  });

  it('control characters of the body are escaped in the parse error', async () => {
    const body = Buffer.from('\x1b[2J\x1b[31mboom');
    for (const why of await messages(bytesReply(body, { 'content-type': 'application/json' }))) {
      expect(why).toContain('\\u001b');
    }
  });

  it.each([
    ['JSON followed by garbage', '{"results":[],"links":[]}xyz', /Unexpected non-whitespace character after JSON/],
    ['JSON cut short', '{"results":[{"id":"a"', /Expected ',' or '}' after property value/],
  ])('%s keeps the parse error', async (_, text, reason) => {
    for (const why of await messages({ text })) expect(why).toMatch(reason);
  });

  it.each([204, 200])('a list answered %i without a body is named empty, with its status', async (status) => {
    const client = await clientAnswering({ status, text: '' });
    const error = await client.listAlertConfigs('g1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseError);
    expect((error as OpsManagerResponseError).status).toBe(status);
    expect((error as Error).message).toBe(
      `GET /groups/{groupId}/alertConfigs: the list response (page 1) is empty (status ${status})`,
    );
  });
});

describe('a 2xx body that is no JSON around a secret', () => {
  it.each([
    ['a bare token', 'xoxb-FAKE-SECRET-0000-abcdef'],
    ['an unquoted secret field', '{"webhookSecret": FAKE-SECRET-0000-abcdef}'],
    ['a secret before a stray character', '{"apiToken":"xoxb-FAKE-SECRET-0000"x}'],
  ])('%s: the parse error names the fault without quoting the body', async (_, text) => {
    for (const why of await messages({ text })) {
      expect(why).not.toMatch(/FAKE|SECRET|abcdef/);
      expect(why).toMatch(/JSON/);
    }
  });
});
