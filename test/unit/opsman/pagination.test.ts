// Scenario: list calls follow rel=next links across pages with itemsPerPage=pageSize, never send anything to a foreign origin, and reject link loops and malformed envelopes.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient, nextPageUrl, OpsManagerResponseError } from '../../../lambdas/opsman/index.ts';
import { type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Serves `total` events, `itemsPerPage` per page, with next links built by `linkBase` (default: the server's own). */
async function pagedServer(total: number, linkBase?: (origin: string) => string) {
  const seen: ScriptedRequest[] = [];
  let origin = '';
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => {
      seen.push(req);
      const pageNum = Number(req.query.get('pageNum') ?? '1');
      const size = Number(req.query.get('itemsPerPage') ?? '100');
      const results = Array.from({ length: total }, (_, i) => ({ id: `e${i}`, created: '', eventTypeName: 'X' })).slice(
        (pageNum - 1) * size,
        pageNum * size,
      );
      const href = (n: number) => {
        const q = new URLSearchParams(req.query);
        q.set('pageNum', String(n));
        q.set('itemsPerPage', String(size));
        return `${(linkBase ?? ((o) => o))(origin)}${req.pathname}?${q}`;
      };
      const links = [{ rel: 'self', href: href(pageNum) }];
      if (pageNum * size < total) links.push({ rel: 'next', href: href(pageNum + 1) });
      return { json: { results, links, totalCount: total } };
    },
  });
  origin = server.origin;
  cleanups.push(() => server.close());
  return { server, seen };
}

function client(baseUrl: string, pageSize?: number) {
  const c = createOpsManagerClient({
    baseUrl,
    publicKey: 'pubkey',
    privateKey: TEST_PRIVATE_KEY,
    ...(pageSize ? { pageSize } : {}),
  });
  cleanups.push(() => c.close());
  return c;
}

describe('pagination', () => {
  it('a limited events read stops at maxItems and requests no page past them', async () => {
    const { server, seen } = await pagedServer(20);
    const c = client(server.baseUrl, 3);
    const events = await c.listProjectEvents('g1', { eventType: ['A'] }, { maxItems: 5 });
    expect(events.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2']);
    seen.length = 0;
    expect(await c.listOrgEvents('o1', {}, { maxItems: 6 })).toHaveLength(6);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2']);
  });

  it('follows next links across pages and keeps the filters', async () => {
    const { server, seen } = await pagedServer(7);
    const events = await client(server.baseUrl, 3).listProjectEvents('g1', { eventType: ['A', 'B'], includeRaw: true });
    expect(events.map((e) => e.id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6']);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '3']);
    expect(seen.every((r) => r.query.get('itemsPerPage') === '3' && r.query.getAll('eventType').join() === 'A,B')).toBe(
      true,
    );
    expect(seen[0]?.query.get('includeRaw')).toBe('true');
  });

  it('asks for 500 items per page by default', async () => {
    const { server, seen } = await pagedServer(2);
    await client(server.baseUrl).listAlertConfigs('g1');
    expect(seen.map((r) => r.url)).toEqual(['/api/public/v1.0/groups/g1/alertConfigs?pageNum=1&itemsPerPage=500']);
  });

  it('iterates lazily', async () => {
    const { server, seen } = await pagedServer(10);
    const c = client(server.baseUrl, 2);
    const ids: string[] = [];
    for await (const event of c.iterateProjectEvents('g1')) {
      ids.push(event.id);
      if (ids.length === 3) break;
    }
    expect(ids).toEqual(['e0', 'e1', 'e2']);
    expect(seen).toHaveLength(2);
  });

  // The spec says a next link "appears when more pages exist", not what its href carries. A server written from it
  // may link `?pageNum=2` alone, take 100 items per page when itemsPerPage is not sent, and require startDate and
  // endDate of the assignment listings: the link taken as given asked page 2 at 100 items (items 101-200, read
  // already: "served twice"), and without the dates (400).
  it('adds back what a bare ?pageNum=N next link leaves out: itemsPerPage and the filters', async () => {
    const seen: ScriptedRequest[] = [];
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => {
        seen.push(req);
        const assignments = req.pathname.endsWith('/hosts');
        for (const name of assignments ? ['startDate', 'endDate'] : []) {
          if (!req.query.has(name)) return { status: 400, json: { error: 400, errorCode: 'MISSING_QUERY_PARAMETER' } };
        }
        const total = 650;
        const pageNum = Number(req.query.get('pageNum') ?? '1');
        const size = Number(req.query.get('itemsPerPage') ?? '100');
        const results = Array.from({ length: total }, (_, i) =>
          assignments ? { hostname: `h${i}`, processes: [], serverType: 'DEV_SERVER' } : { id: `c${i}` },
        ).slice((pageNum - 1) * size, pageNum * size);
        const links = [{ rel: 'self', href: `${req.pathname}?pageNum=${pageNum}` }];
        if (pageNum * size < total) links.push({ rel: 'next', href: `${req.pathname}?pageNum=${pageNum + 1}` });
        return { json: { results, links, totalCount: total } };
      },
    });
    cleanups.push(() => server.close());
    const c = client(server.baseUrl);
    expect(await c.listAlertConfigs('g1')).toHaveLength(650);
    const hosts = await c.listProjectHostAssignments('g1', '2026-01-01', '2026-01-31');
    expect(hosts.map((h) => h.hostname)).toEqual(Array.from({ length: 650 }, (_, i) => `h${i}`));
    const events = await c.listProjectEvents('g1', { eventType: ['A', 'B'], minDate: '2026-01-01T00:00:00Z' });
    expect(events).toHaveLength(650);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '1', '2', '1', '2']);
    expect(seen.every((r) => r.query.get('itemsPerPage') === '500')).toBe(true);
    expect(seen[3]?.query.get('startDate')).toBe('2026-01-01');
    expect(seen[3]?.query.get('endDate')).toBe('2026-01-31');
    expect(seen[5]?.query.getAll('eventType')).toEqual(['A', 'B']);
    expect(seen[5]?.query.get('minDate')).toBe('2026-01-01T00:00:00Z');
  });

  it('never follows a next link to another origin: it pages its own URL instead', async () => {
    const foreign = await startDigestServer({ password: TEST_PRIVATE_KEY });
    cleanups.push(() => foreign.close());
    const { server, seen } = await pagedServer(5, () => foreign.origin);
    const events = await client(server.baseUrl, 2).listOrgEvents('o1');
    expect(events).toHaveLength(5);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '3']);
    expect(foreign.log).toEqual([]);
  });

  it('rejects a next link that loops back', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => ({ json: { results: [{ id: 'x' }], links: [{ rel: 'next', href: req.url }] } }),
    });
    cleanups.push(() => server.close());
    const error = await client(server.baseUrl)
      .listAlertConfigs('g1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseError);
    expect((error as Error).message).toMatch(/already read/);
  });

  it.each([
    ['not JSON', 'oops', /not JSON/],
    ['no results', '{"links":[]}', /no results array/],
    ['a null item', '{"results":[{"id":"a"},null],"links":[]}', /results\[1\] \(page 1\) is not an object/],
    ['a bare value', '{"results":["a"],"links":[]}', /results\[0\] \(page 1\) is not an object/],
    ['a list item', '{"results":[[]],"links":[]}', /results\[0\] \(page 1\) is not an object/],
  ])('rejects a list body that is %s', async (_name, text, message) => {
    const server = await startDigestServer({ password: TEST_PRIVATE_KEY, handler: () => ({ text }) });
    cleanups.push(() => server.close());
    await expect(client(server.baseUrl).listAlertConfigs('g1')).rejects.toThrow(message);
  });
});

describe('nextPageUrl', () => {
  const base = new URL('https://om.example.com:8443/api/public/v1.0');
  const current = new URL('https://om.example.com:8443/api/public/v1.0/groups/g/events?itemsPerPage=2&pageNum=1');
  it.each([
    ['no links', undefined, null],
    ['no next', [{ rel: 'self', href: current.href }], null],
    [
      'same origin, what it leaves out of the own query added back',
      [{ rel: 'next', href: 'https://om.example.com:8443/api/public/v1.0/groups/g/events?pageNum=2' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?pageNum=2&itemsPerPage=2',
    ],
    [
      'relative',
      [{ rel: 'next', href: '/api/public/v1.0/groups/g/events?pageNum=3' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?pageNum=3&itemsPerPage=2',
    ],
    [
      'its own value of a parameter kept',
      [{ rel: 'next', href: '/api/public/v1.0/groups/g/events?pageNum=3&itemsPerPage=5' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?pageNum=3&itemsPerPage=5',
    ],
    [
      'no pageNum of ours added to a link that pages without one',
      [{ rel: 'next', href: '/api/public/v1.0/groups/g/events?cursor=abc&itemsPerPage=2' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?cursor=abc&itemsPerPage=2',
    ],
    [
      'another path under the base taken as given',
      [{ rel: 'next', href: '/api/public/v1.0/groups/g/events2?pageNum=3' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events2?pageNum=3',
    ],
    [
      'other host: own URL, its pageNum',
      [{ rel: 'next', href: 'https://evil.example/api/public/v1.0/groups/g/events?pageNum=2' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?itemsPerPage=2&pageNum=2',
    ],
    [
      'outside the base path',
      [{ rel: 'next', href: 'https://om.example.com:8443/other?pageNum=4' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?itemsPerPage=2&pageNum=4',
    ],
    [
      'rel in another case (RFC 8288: relation types are case-insensitive)',
      [{ rel: 'Next', href: '/api/public/v1.0/groups/g/events?itemsPerPage=2&pageNum=2' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?itemsPerPage=2&pageNum=2',
    ],
    [
      'query parameters in another order',
      [{ rel: 'next', href: '/api/public/v1.0/groups/g/events?pageNum=2&itemsPerPage=2' }],
      'https://om.example.com:8443/api/public/v1.0/groups/g/events?pageNum=2&itemsPerPage=2',
    ],
  ])('%s', (_name, links, expected) => {
    expect(nextPageUrl(links, current, base)?.href ?? null).toBe(expected);
  });

  // A next link says more pages exist: one that cannot be followed must not end the list as if it were complete.
  it.each([
    ['foreign without pageNum', [{ rel: 'next', href: 'https://evil.example/x' }]],
    ['not a string', [{ rel: 'next', href: 42 }]],
    ['no href', [{ rel: 'next' }]],
    ['not a URL', [{ rel: 'next', href: 'http://[' }]],
  ])('throws on a next link that cannot be followed: %s', (_name, links) => {
    expect(() => nextPageUrl(links, current, base)).toThrow(/next link/);
  });
});

/** Serves `total` items by pageNum/itemsPerPage with the envelope `shape` builds (links, totalCount left to it). */
async function envelopeServer(
  total: number,
  shape: (page: { results: unknown[]; pageNum: number; size: number }) => Record<string, unknown>,
) {
  const seen: ScriptedRequest[] = [];
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => {
      seen.push(req);
      const pageNum = Number(req.query.get('pageNum') ?? '1');
      const size = Number(req.query.get('itemsPerPage') ?? '100');
      const all = Array.from({ length: total }, (_, i) => ({ id: `c${i}`, eventTypeName: 'HOST_DOWN' }));
      const results = all.slice((pageNum - 1) * size, pageNum * size);
      return { json: { results, ...shape({ results, pageNum, size }) } };
    },
  });
  cleanups.push(() => server.close());
  return { server, seen };
}

describe('pagination without links (the spec promises them; a server that leaves them out is not read partially)', () => {
  it('links absent, totalCount present: pages until totalCount items are read', async () => {
    const { server, seen } = await envelopeServer(5, () => ({ totalCount: 5 }));
    const configs = await client(server.baseUrl, 2).listAlertConfigs('g1');
    expect(configs.map((c) => c.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '3']);
  });

  it('links null and no totalCount: pages while pages are full', async () => {
    const { server, seen } = await envelopeServer(7, () => ({ links: null }));
    const configs = await client(server.baseUrl, 3).listAlertConfigs('g1');
    expect(configs).toHaveLength(7);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '3']);
  });

  it('an exact multiple of the page size ends on the empty page after it', async () => {
    const { server, seen } = await envelopeServer(6, () => ({}));
    const configs = await client(server.baseUrl, 3).listAlertConfigs('g1');
    expect(configs).toHaveLength(6);
    expect(seen.map((r) => r.query.get('pageNum'))).toEqual(['1', '2', '3']);
  });

  it('an exact multiple with totalCount stops without asking for an empty page', async () => {
    const { server, seen } = await envelopeServer(6, () => ({ totalCount: 6 }));
    expect(await client(server.baseUrl, 3).listAlertConfigs('g1')).toHaveLength(6);
    expect(seen).toHaveLength(2);
  });

  it('a server that ignores pageNum is refused, not read 10,000 times', async () => {
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: () => ({ json: { results: [{ id: 'a' }, { id: 'b' }] } }),
    });
    cleanups.push(() => server.close());
    await expect(client(server.baseUrl, 2).listAlertConfigs('g1')).rejects.toThrow(/ignores pageNum/);
    expect(server.log.filter((l) => l.status === 200)).toHaveLength(2);
  });

  it('a next link that cannot be followed fails the list instead of truncating it', async () => {
    const { server } = await envelopeServer(4, ({ pageNum }) => ({
      links: pageNum === 1 ? [{ rel: 'next', href: 'https://elsewhere.example/list' }] : [],
      totalCount: 4,
    }));
    const error = await client(server.baseUrl, 2)
      .listAlertConfigs('g1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpsManagerResponseError);
    expect((error as Error).message).toMatch(/next link/);
  });
});
