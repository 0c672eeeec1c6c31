// Scenario: the conventions every endpoint shares: success headers, pretty, envelope, pageNum/itemsPerPage edges,
// includeCount, and absolute links that keep the request's own query first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHarness, K, startHarness, W } from '../../helpers/emulator-client.ts';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startHarness();
  // 7 alert configs in search-prod: 4 seeded + 3 more.
  for (let i = 0; i < 3; i++) {
    await h.owner.post(`/groups/${W.searchProd}/alertConfigs`, {
      eventTypeName: 'HOST_RESTARTED',
      notifications: [{ typeName: 'EMAIL', emailAddress: `n${i}@acme.example` }],
    });
  }
});
afterAll(async () => {
  await h.emu.close();
});

const LIST = `/groups/${W.searchProd}/alertConfigs`;

describe('headers', () => {
  it('carries the real product success headers', async () => {
    const res = await h.owner.get(LIST);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-vendor-service-version')).toMatch(/^gitHash=[0-9a-f]{40}; versionString=\S+$/);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=300');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(res.headers.get('date')).toBeTruthy();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
  });
});

describe('HEAD', () => {
  it('answers like GET without a body', async () => {
    const res = await h.owner.request('HEAD', LIST);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    // The length of the body a GET would send, and the same headers.
    const get = await h.owner.get(LIST);
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(get.text));
    expect(res.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });
});

describe('pretty and envelope', () => {
  it('pretty-prints on request', async () => {
    const res = await h.owner.get(`/orgs/${W.acme}/teams/${W.dbaOncall}?pretty=true`);
    expect(res.text).toBe(JSON.stringify(res.body, null, 2));
    expect((await h.owner.get(`/orgs/${W.acme}/teams/${W.dbaOncall}`)).text).toBe(JSON.stringify(res.body));
  });

  it('wraps a single entity as {status, content}', async () => {
    const res = await h.owner.get(`/orgs/${W.acme}/teams/${W.dbaOncall}?envelope=true`);
    expect(res.body).toEqual({
      status: 200,
      content: expect.objectContaining({ id: W.dbaOncall, name: 'dba-oncall' }),
    });
  });

  it('adds status to a list envelope', async () => {
    const res = await h.owner.get(`${LIST}?envelope=true&itemsPerPage=2`);
    expect(Object.keys(res.body).sort()).toEqual(['links', 'results', 'status', 'totalCount']);
    expect(res.body.status).toBe(200);
  });

  it('wraps an error as {status, content} with the five fields inside, keeping the HTTP status', async () => {
    const res = await h.owner.get(`/groups/${W.missing}/alertConfigs?envelope=true`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      status: 404,
      content: {
        detail: `No group with ID ${W.missing} exists.`,
        error: 404,
        errorCode: 'GROUP_NOT_FOUND',
        parameters: [W.missing],
        reason: 'Not Found',
      },
    });
  });

  it('reads true and false in any case (envelope=TRUE, pretty=True, includeCount=FALSE)', async () => {
    const res = await h.owner.get(`/orgs/${W.acme}/teams/${W.dbaOncall}?envelope=TRUE&pretty=True`);
    expect(res.body).toEqual({ status: 200, content: expect.objectContaining({ id: W.dbaOncall }) });
    expect(res.text).toBe(JSON.stringify(res.body, null, 2));
    expect((await h.owner.get(`${LIST}?includeCount=FALSE`)).status).toBe(200);
  });

  it('wraps an answer that has no body as {status} alone, with no content', async () => {
    // The spec: single results are wrapped as {status, content}; an answer without a body has no content to carry.
    const path = `/usage/groups/${W.searchProd}/defaultServerType`;
    const res = await h.owner.put(`${path}?envelope=true`, { serverType: { name: 'PRODUCTION_SERVER' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"status":200}');
  });

  it('refuses a bad envelope on an endpoint that answers one entity, before doing anything', async () => {
    const res = await h.owner.get(`/orgs/${W.acme}/teams/${W.dbaOncall}?envelope=yes`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_QUERY_PARAMETER', parameters: ['envelope'] });
  });

  it.each([['pretty=yes'], ['envelope=1'], ['includeCount=maybe']])('refuses %s', async (q) => {
    const res = await h.owner.get(`${LIST}?${q}`);
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_QUERY_PARAMETER');
  });
});

describe('pagination', () => {
  it('pages with self, previous and next links keeping the query first', async () => {
    const first = await h.owner.get(`${LIST}?pretty=false&itemsPerPage=3`);
    expect(first.body.totalCount).toBe(7);
    expect(first.body.results).toHaveLength(3);
    const base = `${h.emu.url}${LIST}`;
    expect(first.body.links).toEqual([
      { href: `${base}?pretty=false&pageNum=1&itemsPerPage=3`, rel: 'self' },
      { href: `${base}?pretty=false&pageNum=2&itemsPerPage=3`, rel: 'next' },
    ]);
    const last = await h.owner.get(`${LIST}?itemsPerPage=3&pageNum=3&pretty=false`);
    expect(last.body.results).toHaveLength(1);
    expect(last.body.links).toEqual([
      { href: `${base}?pretty=false&pageNum=3&itemsPerPage=3`, rel: 'self' },
      { href: `${base}?pretty=false&pageNum=2&itemsPerPage=3`, rel: 'previous' },
    ]);
  });

  it('links a middle page both ways, and gives a page that ends the list exactly no next link', async () => {
    const base = `${h.emu.url}${LIST}`;
    const middle = await h.owner.get(`${LIST}?itemsPerPage=3&pageNum=2`);
    expect(middle.body.links).toEqual([
      { href: `${base}?pageNum=2&itemsPerPage=3`, rel: 'self' },
      { href: `${base}?pageNum=1&itemsPerPage=3`, rel: 'previous' },
      { href: `${base}?pageNum=3&itemsPerPage=3`, rel: 'next' },
    ]);
    // The spec: "A next link appears when more pages exist"; 7 items in pages of 7 leave none after page 1.
    const full = await h.owner.get(`${LIST}?itemsPerPage=7`);
    expect(full.body.results).toHaveLength(7);
    expect(full.body.links).toEqual([{ href: `${base}?pageNum=1&itemsPerPage=7`, rel: 'self' }]);
  });

  it('adds pageNum and itemsPerPage to self even when the client sent neither', async () => {
    const res = await h.owner.get(LIST);
    expect(res.body.links).toEqual([{ href: `${h.emu.url}${LIST}?pageNum=1&itemsPerPage=100`, rel: 'self' }]);
  });

  it('answers an empty page past the end', async () => {
    const res = await h.owner.get(`${LIST}?pageNum=9&itemsPerPage=3`);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.totalCount).toBe(7);
  });

  it('answers an empty page for any pageNum a Java int holds, and 400 past it', async () => {
    // The spec bounds pageNum only below ("1-based"); the real product reads it as a Java int. A 10-digit page is
    // an empty page like any other past the end, not a malformed parameter.
    for (const pageNum of ['1000000000', '2147483647', '02147483647']) {
      const res = await h.owner.get(`${LIST}?pageNum=${pageNum}&itemsPerPage=500`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ results: [], totalCount: 7 });
      expect(res.body.links[0].href).toBe(`${h.emu.url}${LIST}?pageNum=${Number(pageNum)}&itemsPerPage=500`);
    }
    const res = await h.owner.get(`${LIST}?pageNum=2147483648`);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_QUERY_PARAMETER', parameters: ['pageNum'] });
  });

  it('accepts itemsPerPage 1 and 500', async () => {
    expect((await h.owner.get(`${LIST}?itemsPerPage=1`)).body.results).toHaveLength(1);
    expect((await h.owner.get(`${LIST}?itemsPerPage=500`)).body.results).toHaveLength(7);
  });

  it.each([
    ['itemsPerPage=0'],
    ['itemsPerPage=501'],
    ['itemsPerPage=ten'],
    ['pageNum=0'],
    ['pageNum=-1'],
    ['pageNum=1.5'],
  ])('refuses %s with INVALID_QUERY_PARAMETER', async (q) => {
    const res = await h.owner.get(`${LIST}?${q}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errorCode: 'INVALID_QUERY_PARAMETER', parameters: [q.split('=')[0]] });
  });

  it('keeps totalCount with includeCount=false (the spec: every list response has it)', async () => {
    const res = await h.owner.get(`${LIST}?includeCount=false`);
    expect(res.body.totalCount).toBe(7);
    expect(res.body.results).toHaveLength(7);
  });

  it('ignores paging parameters on an endpoint that answers one entity', async () => {
    const id = (await h.owner.get(LIST)).body.results[0].id;
    const res = await h.owner.get(`${LIST}/${id}?pageNum=abc&itemsPerPage=0&includeCount=maybe`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
  });

  it('checks the role before the query: a caller without the role gets 401, not a 400 about its query', async () => {
    const res = await h.as(K.viewer).get('/usage/groups?itemsPerPage=0');
    expect(res.status).toBe(401);
    expect(res.body.errorCode).toBe('USER_UNAUTHORIZED');
    expect((await h.owner.get('/usage/groups?itemsPerPage=0')).body.errorCode).toBe('INVALID_QUERY_PARAMETER');
  });

  it('an empty list is 200 with results []', async () => {
    const res = await h.owner.get(`/orgs/${W.globex}/events`);
    expect(res.body).toMatchObject({ results: [], totalCount: 0 });
  });
});
