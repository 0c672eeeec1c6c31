/**
 * Test-only HTTP client for the emulator: a tiny independent Digest implementation (MD5, qop=auth) over fetch, with
 * knobs to misbehave on purpose (nc width, nonce reuse, replay), plus the example world's ids and keys.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../emulator/index.ts';

/** The example seed's ids. */
export const W = {
  acme: '5e2211c17a3e5a48f5497de0',
  globex: '5e2211c17a3e5a48f5497de1',
  paymentsProd: '5e2211c17a3e5a48f5497de3',
  paymentsStaging: '5e2211c17a3e5a48f5497de4',
  searchProd: '5e2211c17a3e5a48f5497de5',
  analyticsDev: '5e2211c17a3e5a48f5497de6',
  ledgerProd: '5e2211c17a3e5a48f5497de7',
  dbaOncall: '6a1f00000000000000000001',
  platformSre: '6a1f00000000000000000002',
  missing: '5e2211c17a3e5a48f5497dff',
} as const;

/** The example seed's API keys. */
export const K = {
  owner: { publicKey: 'gitopsbt', privateKey: '7f3c2a9e-4b1d-4e8f-9a6c-1d2e3f4a5b6c' },
  jdoe: { publicKey: 'jdoekey1', privateKey: '0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f' },
  viewer: { publicKey: 'roviewer', privateKey: '3b4c5d6e-7f80-4192-a3b4-c5d6e7f80912' },
  member: { publicKey: 'acmemmbr', privateKey: '9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d' },
  automation: { publicKey: 'autoadmn', privateKey: '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a' },
} as const;

/** A key pair. */
export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

/** A response, read whole. */
export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** Parses the directives of a WWW-Authenticate Digest challenge. */
export function parseChallenge(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)) out[m[1] ?? ''] = m[2] ?? m[3] ?? '';
  return out;
}

/** An Authorization header for the given nonce and nc string (sent exactly as given). */
export function digestHeader(
  key: KeyPair,
  method: string,
  uri: string,
  nonce: string,
  nc: string,
  options: { realm?: string; cnonce?: string; response?: string } = {},
): string {
  const realm = options.realm ?? 'MMS Public API';
  const cnonce = options.cnonce ?? randomBytes(8).toString('hex');
  const ha1 = md5(`${key.publicKey}:${realm}:${key.privateKey}`);
  const ha2 = md5(`${method}:${uri}`);
  const response = options.response ?? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return `Digest username="${key.publicKey}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=MD5, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"`;
}

async function read(res: Response): Promise<TestResponse> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** A Digest client that caches its nonce and counts nc up, like Python requests does. */
export class DigestClient {
  private nonce: string | null = null;
  private nc = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly key: KeyPair,
    private readonly ncWidth: 'padded' | 'bare' = 'padded',
  ) {}

  /** Sends `method path` (path after the base URL, query included), re-challenging once on 401. */
  async request(method: string, path: string, body?: unknown, rawBody?: string): Promise<TestResponse> {
    const url = `${this.baseUrl}${path}`;
    const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    for (let attempt = 0; attempt < 2; attempt++) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (this.nonce) {
        this.nc++;
        const nc = this.ncWidth === 'padded' ? this.nc.toString(16).padStart(8, '0') : this.nc.toString(16);
        const u = new URL(url);
        headers.Authorization = digestHeader(this.key, method, u.pathname + u.search, this.nonce, nc);
      }
      const res = await read(await fetch(url, { method, headers, body: payload }));
      if (res.status !== 401 || !res.headers.get('www-authenticate')) return res;
      this.nonce = parseChallenge(res.headers.get('www-authenticate')).nonce ?? null;
      this.nc = 0;
      if (attempt === 1) return res;
    }
    throw new Error('unreachable');
  }

  get(path: string) {
    return this.request('GET', path);
  }
  post(path: string, body?: unknown) {
    return this.request('POST', path, body);
  }
  put(path: string, body?: unknown) {
    return this.request('PUT', path, body);
  }
  patch(path: string, body?: unknown) {
    return this.request('PATCH', path, body);
  }
  delete(path: string) {
    return this.request('DELETE', path);
  }
}

/** A started emulator with clients for each example key and admin helpers. */
export interface EmulatorHarness {
  emu: RunningEmulator;
  as(key: KeyPair, ncWidth?: 'padded' | 'bare'): DigestClient;
  owner: DigestClient;
  admin(method: string, path: string, body?: unknown): Promise<TestResponse>;
}

/** Starts an emulator (admin on, example seed unless given) and builds clients. */
export async function startHarness(options: EmulatorOptions = {}): Promise<EmulatorHarness> {
  const emu = await startEmulator({ admin: true, onError: () => undefined, ...options });
  const as = (key: KeyPair, ncWidth: 'padded' | 'bare' = 'padded') => new DigestClient(emu.url, key, ncWidth);
  return {
    emu,
    as,
    owner: as(K.owner),
    admin: async (method, path, body) =>
      read(
        await fetch(`${emu.origin}/__emulator${path}`, {
          method,
          headers: { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      ),
  };
}

/** A minimal valid alert configuration body. */
export function alertBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    eventTypeName: 'HOST_DOWN',
    enabled: true,
    notifications: [{ typeName: 'EMAIL', emailAddress: 'oncall@acme.example', delayMin: 0, intervalMin: 15 }],
    ...overrides,
  };
}
