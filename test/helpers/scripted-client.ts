/**
 * A client against a scripted Digest server, for client tests that drive retries, limits and faults: the test key,
 * a fake clock, a recording observer and fixed jitter; the server and client are closed by the caller's cleanups.
 */
import { type ClientOptions, createOpsManagerClient } from '../../lambdas/opsman/index.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from './client-digest-server.ts';
import { fakeClock, recordingObserver, TEST_PRIVATE_KEY } from './client-fixtures.ts';

/** Starts a server whose authenticated requests `handler` answers, and a client to it. */
export async function scriptedClient(
  handler: (request: ScriptedRequest) => ScriptedReply,
  cleanups: (() => Promise<void>)[],
  extra: Partial<ClientOptions> = {},
) {
  const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler });
  const clock = fakeClock();
  const observer = recordingObserver();
  const client = createOpsManagerClient({
    baseUrl: server.baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    clock,
    observer,
    random: () => 0.5,
    ...extra,
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, clock, observer };
}
