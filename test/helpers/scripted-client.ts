/**
 * A client against a scripted Digest server, for client tests that drive retries, limits and faults: the test key,
 * a fake clock, a recording observer and fixed jitter; the server and client are closed by the caller's cleanups.
 */
import { type ClientOptions, createOpsManagerClient } from '../../lambdas/opsman/index.ts';
import {
  type DigestServerOptions,
  type ScriptedReply,
  type ScriptedRequest,
  startDigestServer,
} from './client-digest-server.ts';
import { fakeClock, recordingObserver, TEST_PRIVATE_KEY } from './client-fixtures.ts';

/**
 * Starts a server whose authenticated requests `handler` answers (and those under `server.publicPaths` without
 * credentials), and a client to it.
 */
export async function scriptedClient(
  handler: (request: ScriptedRequest) => ScriptedReply,
  cleanups: (() => Promise<void>)[],
  extra: Partial<ClientOptions> = {},
  server: Pick<DigestServerOptions, 'publicPaths'> = {},
) {
  const digest = await startDigestServer({ ...server, password: TEST_PRIVATE_KEY, handler });
  const clock = fakeClock();
  const observer = recordingObserver();
  const client = createOpsManagerClient({
    baseUrl: digest.baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    clock,
    observer,
    random: () => 0.5,
    ...extra,
  });
  cleanups.push(
    () => digest.close(),
    () => client.close(),
  );
  return { server: digest, client, clock, observer };
}
