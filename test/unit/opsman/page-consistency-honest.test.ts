// Scenario: honest servers of every envelope style (next link while more exist or one more to an empty page, links without a count, a count without links, neither) page lists of exactly 0, 500, 501 and 1000 items at the default page size, alert configs and events with includeRaw; the page checks read each whole, never refusing one.
import { afterEach, describe, expect, it } from 'vitest';
import { createOpsManagerClient } from '../../../lambdas/opsman/index.ts';
import { startDigestServer } from '../../helpers/client-digest-server.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Style = 'next-while-more' | 'next-to-empty' | 'links-no-count' | 'count-no-links' | 'bare';

async function honest(total: number, style: Style) {
  const server = await startDigestServer({
    password: TEST_PRIVATE_KEY,
    handler: (req) => {
      const pageNum = Number(req.query.get('pageNum') ?? '1');
      const size = Number(req.query.get('itemsPerPage') ?? '100');
      const href = (n: number) => `${server.origin}${req.pathname}?pageNum=${n}&itemsPerPage=${size}`;
      const results = Array.from({ length: total }, (_, i) => ({
        id: `e${String(i).padStart(5, '0')}`,
        eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
        created: '2026-11-26T00:00:00Z',
        raw: { _t: 'ALERT_CONFIG_AUDIT', alertConfigId: `c${i}` },
      })).slice((pageNum - 1) * size, pageNum * size);
      const links: { rel: string; href: string }[] = [{ rel: 'self', href: href(pageNum) }];
      const more = pageNum * size < total;
      if (more || (style === 'next-to-empty' && results.length > 0))
        links.push({ rel: 'next', href: href(pageNum + 1) });
      const json: Record<string, unknown> = { results };
      if (style !== 'count-no-links' && style !== 'bare') json.links = links;
      if (style !== 'links-no-count' && style !== 'bare') json.totalCount = total;
      return { json };
    },
  });
  cleanups.push(() => server.close());
  const client = createOpsManagerClient({ baseUrl: server.baseUrl, publicKey: 'pubkey', privateKey: TEST_PRIVATE_KEY });
  cleanups.push(() => client.close());
  return client;
}

const styles: Style[] = ['next-while-more', 'next-to-empty', 'links-no-count', 'count-no-links', 'bare'];
const cases = styles.flatMap((style) => [0, 500, 501, 1000].map((total) => ({ style, total })));

describe('honest lists pass the page checks', () => {
  it.each(cases)('$total items, $style', async ({ style, total }) => {
    const client = await honest(total, style);
    const configs = await client.listAlertConfigs('g1');
    expect(configs.length).toBe(total);
    const events = await client.listProjectEvents('g1', {
      eventType: ['ALERT_CONFIG_CHANGED_AUDIT'],
      includeRaw: true,
    });
    expect(new Set(events.map((e) => e.id)).size).toBe(total);
  });
});

describe('an event list that grows while it is read', () => {
  it('is read as it comes, each event once, where a list of alert configs would be refused', async () => {
    // Newest first: an event written after page 1 was served shifts every later page by one.
    let events = Array.from({ length: 600 }, (_, i) => ({
      id: `e${String(599 - i).padStart(5, '0')}`,
      eventTypeName: 'ALERT_CONFIG_CHANGED_AUDIT',
      created: '2026-11-26T00:00:00Z',
    }));
    const server = await startDigestServer({
      password: TEST_PRIVATE_KEY,
      handler: (req) => {
        const pageNum = Number(req.query.get('pageNum') ?? '1');
        const size = Number(req.query.get('itemsPerPage') ?? '100');
        const href = (n: number) => `${server.origin}${req.pathname}?pageNum=${n}&itemsPerPage=${size}`;
        const results = events.slice((pageNum - 1) * size, pageNum * size);
        const links = [{ rel: 'self', href: href(pageNum) }];
        if (pageNum * size < events.length) links.push({ rel: 'next', href: href(pageNum + 1) });
        const json = { results, links, totalCount: events.length };
        if (pageNum === 1) events = [{ ...(events[0] as (typeof events)[0]), id: 'e-new' }, ...events];
        return { json };
      },
    });
    cleanups.push(() => server.close());
    const client = createOpsManagerClient({
      baseUrl: server.baseUrl,
      publicKey: 'pubkey',
      privateKey: TEST_PRIVATE_KEY,
    });
    cleanups.push(() => client.close());
    const read = await client.listProjectEvents('g1', { eventType: ['ALERT_CONFIG_CHANGED_AUDIT'], includeRaw: true });
    expect(read.map((e) => e.id)).toEqual(
      Array.from({ length: 600 }, (_, i) => `e${String(599 - i).padStart(5, '0')}`),
    );
    const firstTwo = await client.listProjectEvents('g1', {}, { maxItems: 700 });
    expect(new Set(firstTwo.map((e) => e.id)).size).toBe(firstTwo.length);
    await expect(client.listAlertConfigs('g1')).rejects.toThrow(/the list is not read partially/);
  });
});
