// Scenario: a Digest-protected loopback server pages a list whose pages disagree (a totalCount that is no count, changes between pages or is not met, an id served twice); the client refuses the list with an error naming the route and what disagreed, and never returns a partial one.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerResponseError } from '../../../lambdas/opsman/index.ts';
import { type ScriptedReply, type ScriptedRequest, startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ROUTE = 'GET /groups/{groupId}/alertConfigs';

/** One page as the server would build it honestly: the page's slice, a next link while more exist, the count. */
interface Page {
  pageNum: number;
  size: number;
  results: { id: string }[];
  links: { rel: string; href: string }[];
  totalCount: number;
}

/** Serves `total` alert configs page by page; `tamper` may change the honest page before it is sent. */
async function listServer(
  total: number,
  tamper: (page: Page, req: ScriptedRequest) => ScriptedReply = (p) => ({ json: p }),
) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => {
      const pageNum = Number(req.query.get('pageNum'));
      const size = Number(req.query.get('itemsPerPage'));
      const all = Array.from({ length: total }, (_, i) => ({ id: `c${i}` }));
      const href = (n: number) => `${server.origin}${req.pathname}?pageNum=${n}&itemsPerPage=${size}`;
      const links = [{ rel: 'self', href: href(pageNum) }];
      if (pageNum * size < total) links.push({ rel: 'next', href: href(pageNum + 1) });
      const results = all.slice((pageNum - 1) * size, pageNum * size);
      const page: Page = { pageNum, size, results, links, totalCount: total };
      const reply = tamper(page, req);
      if (reply === 'reset') return reply;
      return reply.json === page ? { json: { results, links, totalCount: page.totalCount } } : reply;
    },
  });
  cleanups.push(() => server.close());
  return server;
}

function client(baseUrl: string, pageSize: number) {
  const c = createOpsManagerClient({ baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY, pageSize });
  cleanups.push(() => c.close());
  return c;
}

async function failure(promise: Promise<unknown>): Promise<OpsManagerResponseError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpsManagerResponseError);
  const message = (error as Error).message;
  expect(message.startsWith(`${ROUTE}: `)).toBe(true);
  expect(message).toContain('the list is not read partially');
  expect(message).not.toContain(TEST_PRIVATE_KEY);
  return error as OpsManagerResponseError;
}

describe('a list whose pages disagree is refused, not planned from', () => {
  it.each([
    ['negative', -5],
    ['fractional', 1.5],
    ['a string', '3'],
    ['huge', 1e300],
    ['a long string, quoted clipped', 'x'.repeat(10_000)],
  ])('a totalCount that is %s', async (_, totalCount) => {
    const server = await listServer(3, (p) => ({ json: { results: p.results, links: p.links, totalCount } }));
    const error = await failure(client(server.baseUrl, 10).listAlertConfigs('g1'));
    const shown = JSON.stringify(totalCount);
    const clipped = shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
    expect(error.message).toContain(`totalCount ${clipped} (page 1) is not a non-negative integer`);
    expect(error.message.length).toBeLessThan(300);
  });

  it('a totalCount smaller than the items served', async () => {
    const server = await listServer(3, (p) => ({ json: { results: p.results, links: p.links, totalCount: 2 } }));
    const error = await failure(client(server.baseUrl, 10).listAlertConfigs('g1'));
    expect(error.message).toContain('page 1 brings the items served to 3, more than totalCount 2');
  });

  it('a last page with fewer items than totalCount says (the rest silently missing)', async () => {
    // 5 configs, pages of 2: the last page drops c4 and still claims 5 in all.
    const server = await listServer(5, (p) => ({
      json: { results: p.pageNum === 3 ? [] : p.results, links: p.links, totalCount: 5 },
    }));
    const error = await failure(client(server.baseUrl, 2).listAlertConfigs('g1'));
    expect(error.message).toContain('the last page (3) ends the list after 4 item(s), but totalCount is 5');
  });

  it('no next link while totalCount says more exist', async () => {
    const server = await listServer(5, (p) => ({
      json: { results: p.results, links: p.links.filter((l) => l.rel !== 'next'), totalCount: 5 },
    }));
    const error = await failure(client(server.baseUrl, 2).listAlertConfigs('g1'));
    expect(error.message).toContain('the last page (1) ends the list after 2 item(s), but totalCount is 5');
    expect(server.log.filter((l) => l.status === 200)).toHaveLength(1);
  });

  it('a totalCount that changes between pages (a config deleted mid-read shifts another one out of reach)', async () => {
    const server = await listServer(5, (p) => ({
      json: { results: p.results, links: p.links, totalCount: p.pageNum === 1 ? 5 : 4 },
    }));
    const error = await failure(client(server.baseUrl, 2).listAlertConfigs('g1'));
    expect(error.message).toContain('totalCount changed from 5 to 4 on page 2');
  });

  it('pages that overlap: the same id on two pages', async () => {
    // Page 2 starts one item early, as offset paging does when a config is created at the head mid-read.
    const server = await listServer(4, (p) => ({
      json: { results: p.pageNum === 2 ? [{ id: 'c1' }, { id: 'c2' }] : p.results, links: p.links, totalCount: 4 },
    }));
    const error = await failure(client(server.baseUrl, 2).listAlertConfigs('g1'));
    expect(error.message).toContain('the id "c1" is served twice (page 1 and page 2): the pages overlap');
  });

  it('a next link whose pageNum is past the end serves the first page again: refused at its first repeated id', async () => {
    const server = await listServer(2, (p, req) => {
      const again = `${server.origin}${req.pathname}?pageNum=1&itemsPerPage=${p.size}&again=${p.pageNum}`;
      return {
        json: {
          results: p.results.length > 0 ? p.results : [{ id: 'c0' }],
          links: [{ rel: 'next', href: again }],
          totalCount: 2,
        },
      };
    });
    const error = await failure(client(server.baseUrl, 2).listAlertConfigs('g1'));
    expect(error.message).toContain('the id "c0" is served twice (page 1 and page 2)');
    expect(server.log.filter((l) => l.status === 200)).toHaveLength(2);
  });

  it('an honest list is read whole, an empty one too (totalCount 0)', async () => {
    const five = await listServer(5);
    expect((await client(five.baseUrl, 2).listAlertConfigs('g1')).map((c) => c.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
    const none = await listServer(0);
    expect(await client(none.baseUrl, 2).listAlertConfigs('g1')).toEqual([]);
  });

  it('property: every tampering of one page is refused, and no tampering returns exactly the list', async () => {
    type Tamper = 'none' | 'drop-one' | 'repeat-one' | 'count-minus' | 'count-plus' | 'stop-early';
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<Tamper>('none', 'drop-one', 'repeat-one', 'count-minus', 'count-plus', 'stop-early'),
        fc.nat(),
        async (total, size, tamper, pick) => {
          const pages = Math.ceil(total / size);
          const target = (pick % pages) + 1;
          const server = await listServer(total, (p) => {
            let { results, links, totalCount } = p;
            if (p.pageNum === target) {
              if (tamper === 'drop-one') results = results.slice(1);
              if (tamper === 'repeat-one' && p.pageNum > 1)
                results = [{ id: `c${(p.pageNum - 1) * size - 1}` }, ...results.slice(1)];
              if (tamper === 'repeat-one' && p.pageNum === 1) results = [...results, results[0] as { id: string }];
              if (tamper === 'count-minus') totalCount -= 1;
              if (tamper === 'count-plus') totalCount += 1;
              if (tamper === 'stop-early' && p.pageNum < pages) links = links.filter((l) => l.rel !== 'next');
            }
            return { json: { results, links, totalCount } };
          });
          const c = client(server.baseUrl, size);
          const expected = Array.from({ length: total }, (_, i) => `c${i}`);
          const honest = tamper === 'none' || (tamper === 'stop-early' && target === pages);
          if (honest) expect((await c.listAlertConfigs('g1')).map((x) => x.id)).toEqual(expected);
          else await failure(c.listAlertConfigs('g1'));
          for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
        },
      ),
      { numRuns: 40 },
    );
  });
});
