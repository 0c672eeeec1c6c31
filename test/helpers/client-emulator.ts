/**
 * Starts the emulator with its admin API for the client's integration tests, with small typed admin helpers. The
 * admin calls go through their own undici Agent (the TLS emulator serves a throw-away certificate), so this does not
 * use bench/emulator-admin.ts's EmulatorAdmin; the admin contract's types come from there.
 */
import { Agent, fetch } from 'undici';
import type { FaultSpec, RequestLog } from '../../bench/emulator-admin.ts';
import { startEmulator } from '../../emulator/index.ts';
import { type ClientOptions, createOpsManagerClient, type OpsManagerClient } from '../../lambdas/opsman/index.ts';

/** The example world's keys (team brief). */
export const KEYS = {
  owner: { publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' },
  readOnly: { publicKey: 'roviewer', privateKey: '3b4c5d6e-7f80-4192-a3b4-c5d6e7f80912' },
} as const;

/** Fixed ids of the example world. */
export const IDS = {
  acme: '5e2211c17a3e5a48f5497de0',
  paymentsProd: '5e2211c17a3e5a48f5497de3',
  paymentsStaging: '5e2211c17a3e5a48f5497de4',
  searchProd: '5e2211c17a3e5a48f5497de5',
  analyticsDev: '5e2211c17a3e5a48f5497de6',
  ledgerProd: '5e2211c17a3e5a48f5497de7',
  dbaOncall: '6a1f00000000000000000001',
} as const;

/** A running emulator plus clients that are closed with it. */
export interface EmulatorFixture {
  url: string;
  origin: string;
  client(options?: Partial<ClientOptions>): OpsManagerClient;
  fault(spec: FaultSpec): Promise<void>;
  requests(): Promise<RequestLog>;
  clearRequests(): Promise<void>;
  /** Back to the seed, faults and request log cleared. */
  reset(): Promise<void>;
  expireNonces(): Promise<void>;
  close(): Promise<void>;
}

async function admin(
  dispatcher: Agent,
  origin: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${origin}/__emulator${path}`, {
    method,
    dispatcher,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

/** Starts an emulator (admin on) on 127.0.0.1:0. */
export async function startEmulatorFixture(options: { tls?: { cert: string; key: string }; nonceTtlMs?: number } = {}) {
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', admin: true, ...options });
  const clients: OpsManagerClient[] = [];
  // Admin calls only: the test emulator may serve a throw-away certificate.
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  const fixture: EmulatorFixture = {
    url: emulator.url,
    origin: emulator.origin,
    client: (overrides = {}) => {
      const client = createOpsManagerClient({ baseUrl: emulator.url, ...KEYS.owner, ...overrides });
      clients.push(client);
      return client;
    },
    fault: async (spec) => void (await admin(dispatcher, emulator.origin, 'POST', '/faults', spec)),
    requests: async () => (await admin(dispatcher, emulator.origin, 'GET', '/requests')) as RequestLog,
    clearRequests: async () => void (await admin(dispatcher, emulator.origin, 'DELETE', '/requests')),
    reset: async () => void (await admin(dispatcher, emulator.origin, 'POST', '/reset')),
    expireNonces: async () => void (await admin(dispatcher, emulator.origin, 'POST', '/nonces/expire')),
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await dispatcher.close();
      await emulator.close();
    },
  };
  return fixture;
}
