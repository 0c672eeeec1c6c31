// Scenario: the spec's 401 carries `Content-Type: application/json;charset=ISO-8859-1`, and a body so labelled is
// written in ISO-8859-1 (`é` is the one byte E9). The client reads such a body as the charset it names when its bytes
// are not UTF-8 (an error detail, a team name keep their accents instead of U+FFFD), and as UTF-8 when they are.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerAuthError } from '../../../lambdas/opsman/index.ts';
import type { ScriptedReply } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';
import { scriptedClient } from '../../helpers/scripted-client.ts';

const LATIN_JSON = 'application/json;charset=ISO-8859-1';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A 200 whose body is `bytes` under `contentType`, announced by Content-Length or chunked. */
function reply(bytes: Buffer, contentType: string, chunked: boolean): ScriptedReply {
  return {
    respond: (res) => {
      const headers: Record<string, string> = { 'content-type': contentType };
      if (!chunked) headers['content-length'] = String(bytes.length);
      res.writeHead(200, headers);
      res.end(bytes);
    },
  };
}

async function teamNameServed(bytes: Buffer, contentType: string, chunked: boolean): Promise<string> {
  const { client } = await scriptedClient(() => reply(bytes, contentType, chunked), cleanups);
  return (await client.getTeam('o1', 't1')).name;
}

describe('a body labelled charset=ISO-8859-1', () => {
  for (const chunked of [false, true]) {
    const how = chunked ? 'chunked' : 'with a Content-Length';
    it(`is read as ISO-8859-1 when its bytes are not UTF-8 (${how})`, async () => {
      const bytes = Buffer.from('{"id":"t1","name":"Équipe de garde","links":[]}', 'latin1');
      expect(await teamNameServed(bytes, LATIN_JSON, chunked)).toBe('Équipe de garde');
    });

    it(`is read as UTF-8 when its bytes are UTF-8 (a wrong label) (${how})`, async () => {
      const bytes = Buffer.from('{"id":"t1","name":"Équipe de garde","links":[]}', 'utf8');
      expect(await teamNameServed(bytes, LATIN_JSON, chunked)).toBe('Équipe de garde');
    });
  }

  it('a body without that label stays UTF-8', async () => {
    const bytes = Buffer.from('{"id":"t1","name":"Équipe","links":[]}', 'utf8');
    expect(await teamNameServed(bytes, 'application/json', false)).toBe('Équipe');
  });

  it("the 401's ISO-8859-1 detail reaches the refusal's message with its accents", async () => {
    const body = Buffer.from(
      '{"detail":"Clé d\'API refusée.","error":401,"errorCode":"NOT_IN_GROUP","parameters":[],"reason":"Unauthorized"}',
      'latin1',
    );
    let nonce = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      nonce += 1;
      res.writeHead(401, {
        'content-type': LATIN_JSON,
        'content-length': String(body.length),
        'www-authenticate': `Digest realm="MMS Public API", domain="", nonce="n${nonce}", algorithm=MD5, qop="auth", stale=false`,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const client = createOpsManagerClient({
      baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
      retry: { maxAttempts: 1 },
    });
    cleanups.push(() => client.close());
    const error = await client.getTeam('o1', 't1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerAuthError);
    expect((error as Error).message).toContain("Clé d'API refusée.");
  });
});
