// Scenario: pure helpers, table-driven: list links keep the request's query first; fault globs match one or any segments;
// the router dispatches the /usage/groups/{x} overloading and tells 404 from 405.
import { describe, expect, it } from 'vitest';
import { compileGlob, FaultRegistry, parseFault } from '../../../emulator/admin/faults.ts';
import { pageHref, paginate } from '../../../emulator/http/paginate.ts';
import { parseCommonQuery } from '../../../emulator/http/query.ts';
import { Router } from '../../../emulator/router.ts';
import { ROUTES } from '../../../emulator/routes/index.ts';

const loc = (rawQuery: string) => ({ apiBase: 'https://om.example:8443/api/public/v1.0', path: '/usage/x', rawQuery });

describe('pageHref', () => {
  it.each([
    ['', 'https://om.example:8443/api/public/v1.0/usage/x?pageNum=2&itemsPerPage=10'],
    [
      'startDate=2020-07-23&endDate=2020-07-28',
      '...?startDate=2020-07-23&endDate=2020-07-28&pageNum=2&itemsPerPage=10',
    ],
    ['pageNum=7&eventType=A&itemsPerPage=3&eventType=B', '...?eventType=A&eventType=B&pageNum=2&itemsPerPage=10'],
    ['q=a%20b&x', '...?q=a%20b&x&pageNum=2&itemsPerPage=10'],
    // Names are compared decoded: an encoded pageNum is still the client's pageNum, so it is not kept twice.
    ['page%4Eum=7&items%50erPage=3&a=1', '...?a=1&pageNum=2&itemsPerPage=10'],
  ])('query %j', (rawQuery, expected) => {
    expect(pageHref(loc(rawQuery), 2, 10)).toBe(
      expected.replace('...', 'https://om.example:8443/api/public/v1.0/usage/x'),
    );
  });
});

describe('paginate', () => {
  const items = [1, 2, 3, 4, 5];
  it.each([
    [1, 2, [1, 2], ['self', 'next']],
    [2, 2, [3, 4], ['self', 'previous', 'next']],
    [3, 2, [5], ['self', 'previous']],
    [4, 2, [], ['self', 'previous']],
    [1, 5, [1, 2, 3, 4, 5], ['self']],
  ])('page %i of %i', (pageNum, itemsPerPage, results, rels) => {
    const q = { ...parseCommonQuery(new URLSearchParams()), pageNum, itemsPerPage };
    const body = paginate(items, q, loc(''));
    expect(body.results).toEqual(results);
    expect(body.links.map((l) => l.rel)).toEqual(rels);
    expect(body.totalCount).toBe(5);
  });
});

describe('fault globs', () => {
  it.each([
    ['/groups/*/alertConfigs', '/groups/abc/alertConfigs', true],
    ['/groups/*/alertConfigs', '/groups/abc/alertConfigs/def', false],
    ['/groups/*/alertConfigs', '/groups//alertConfigs', false],
    ['/groups/**', '/groups/abc/alertConfigs/def', true],
    ['/**', '/usage/groups', true],
    ['/usage/groups', '/usage/groups', true],
    ['/a.b', '/aXb', false],
    ['/a*', '/a', false],
    ['/a*', '/abc', true],
    ['/*b', '/ab/b', false],
    ['/**/x', '/x', false],
    ['/**/x', '/a/b/x', true],
    ['/**a**b', '/xaybz', false],
    ['/**a**b', '/xayb', true],
    ['/(x)+$', '/(x)+$', true],
  ])('%s vs %s', (glob, path, expected) => {
    expect(compileGlob(glob).test(path)).toBe(expected);
  });

  it('counts down times and respects method and probability', () => {
    const reg = new FaultRegistry();
    reg.add(parseFault({ method: 'post', path: '/x', status: 503, times: 2 }));
    reg.add(parseFault({ path: '/y', status: 500, probability: 0.5 }));
    expect(reg.take('GET', '/x')).toBeNull();
    expect(reg.take('POST', '/x')?.status).toBe(503);
    expect(reg.take('POST', '/x')?.status).toBe(503);
    expect(reg.take('POST', '/x')).toBeNull();
    expect(reg.take('GET', '/y', () => 0.9)).toBeNull();
    // A draw equal to the probability does not fire: with Math.random in [0, 1) it fires with exactly that probability.
    expect(reg.take('GET', '/y', () => 0.5)).toBeNull();
    expect(reg.take('GET', '/y', () => 0.1)?.status).toBe(500);
  });
});

describe('router', () => {
  const router = new Router(ROUTES);
  const route = (method: string, path: string) => {
    const m = router.match(method, path);
    return m.kind === 'found'
      ? `${m.route.template} ${JSON.stringify(m.params)}`
      : m.kind === 'method'
        ? `405 ${m.allow.join(',')}`
        : '404';
  };
  it.each([
    ['GET', '/usage/groups/abc', '/usage/groups/{physicalHostId} {"physicalHostId":"abc"}'],
    ['GET', '/usage/groups/abc/hosts', '/usage/groups/{groupId}/hosts {"groupId":"abc"}'],
    ['PUT', '/usage/groups/abc/defaultServerType', '/usage/groups/{groupId}/defaultServerType {"groupId":"abc"}'],
    ['GET', '/usage/groups/', '/usage/groups {}'],
    ['HEAD', '/groups/g/events', '/groups/{groupId}/events {"groupId":"g"}'],
    ['POST', '/groups/g/events', '405 GET,HEAD'],
    ['PATCH', '/usage/groups/abc', '405 GET,HEAD,PUT,DELETE'],
    ['GET', '/groups/g', '404'],
    ['GET', '/groups/%ZZ/events', '404'],
    // An empty segment is no id: /groups//events names no project, so no route (not GROUP_NOT_FOUND for "").
    ['GET', '/groups//events', '404'],
    [
      'GET',
      '/admin/backup/snapshot/s3Configs/my%20store',
      '/admin/backup/snapshot/s3Configs/{s3ConfigId} {"s3ConfigId":"my store"}',
    ],
  ])('%s %s', (method, path, expected) => {
    expect(route(method, path)).toBe(expected);
  });
});
