// Scenario: edges of following a list's next link: a path that only starts like the base path, a pageNum that is no
// number, a blank href, a relative href (resolved against the page that sent it), and an empty page that still links on.
import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../../lambdas/opsman/auth-exchange.ts';
import { nextPageUrl, paginate, UnusableNextLinkError } from '../../../lambdas/opsman/pagination.ts';
import type { RequestExecutor } from '../../../lambdas/opsman/request-executor.ts';

const BASE = new URL('http://om.test:8080/api/public/v1.0');
const CURRENT = new URL('http://om.test:8080/api/public/v1.0/groups/g1/alertConfigs?pageNum=1&itemsPerPage=500');
const next = (href: string) => [{ rel: 'next', href }];

describe('nextPageUrl', () => {
  it('a path that only starts like the base path is not followed: its pageNum goes on the own URL', () => {
    const url = nextPageUrl(next('http://om.test:8080/api/public/v1.0-other/x?pageNum=2'), CURRENT, BASE);
    expect(url?.href).toBe('http://om.test:8080/api/public/v1.0/groups/g1/alertConfigs?pageNum=2&itemsPerPage=500');
  });

  it('an off-base link whose pageNum is no number cannot be followed', () => {
    expect(() => nextPageUrl(next('https://elsewhere.test/x?pageNum=2abc'), CURRENT, BASE)).toThrow(
      UnusableNextLinkError,
    );
  });

  it('a blank href cannot be followed', () => {
    expect(() => nextPageUrl(next('  '), CURRENT, BASE)).toThrow(UnusableNextLinkError);
  });

  it('a relative href is resolved against the page that sent it', () => {
    const url = nextPageUrl(next('alertConfigs?pageNum=2&itemsPerPage=3'), CURRENT, BASE);
    expect(url?.href).toBe('http://om.test:8080/api/public/v1.0/groups/g1/alertConfigs?pageNum=2&itemsPerPage=3');
  });
});

describe('paginate', () => {
  it('an empty page ends the list even when it links to another', async () => {
    const asked: string[] = [];
    const executor = {
      execute: async (request: HttpRequest): Promise<HttpResponse> => {
        asked.push(request.url.href);
        const n = Number(request.url.searchParams.get('pageNum'));
        const link = new URL(request.url);
        link.searchParams.set('pageNum', String(n + 1));
        return { status: 200, headers: {}, text: JSON.stringify({ results: [], links: next(link.href) }) };
      },
    } as unknown as RequestExecutor;
    const first: HttpRequest = { method: 'GET', pathTemplate: '/x', url: CURRENT, auth: true, secrets: [] };
    const items: unknown[] = [];
    for await (const item of paginate(executor, first, BASE)) items.push(item);
    expect(items).toEqual([]);
    expect(asked).toEqual([CURRENT.href]);
  });
});
