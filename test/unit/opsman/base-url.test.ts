// Scenario: the entry points' base-URL rule: the Public API root is accepted in its usual spellings and normalised;
// a host without the API path, a query, credentials or a non-URL is refused with the reason, never quoting credentials.
import { describe, expect, it } from 'vitest';
import { checkPublicApiBaseUrl } from '../../../lambdas/opsman/base-url.ts';

describe('checkPublicApiBaseUrl', () => {
  it.each([
    ['https://om.corp:8443/api/public/v1.0', 'https://om.corp:8443/api/public/v1.0'],
    ['https://om.corp:8443/api/public/v1.0///', 'https://om.corp:8443/api/public/v1.0'],
    ['http://127.0.0.1:8080/api/public/v1.0/', 'http://127.0.0.1:8080/api/public/v1.0'],
    ['https://gw.corp/opsman/api/public/v1.0', 'https://gw.corp/opsman/api/public/v1.0'],
    ['HTTPS://OM.CORP:443/api/public/v1.0', 'https://om.corp/api/public/v1.0'],
  ])('accepts %s as %s', (value, url) => {
    expect(checkPublicApiBaseUrl('--base-url', value)).toEqual({ ok: true, url });
  });

  it.each([
    [
      'https://om.corp:8443',
      "--base-url must end in /api/public/v1.0, the root of Ops Manager's Public API; its path is '/'",
    ],
    ['https://om.corp:8443/', "its path is '/'"],
    ['https://om.corp/api/public/v1.0/groups', "its path is '/api/public/v1.0/groups'"],
    ['https://om.corp/api/public/v2.0', 'must end in /api/public/v1.0'],
    ['https://om.corp/api/public/v1.0?pretty=true', 'must not carry a query string or a fragment'],
    ['https://om.corp/api/public/v1.0#x', 'must not carry a query string or a fragment'],
    ['ftp://om.corp/api/public/v1.0', "must be http or https, found 'ftp:'"],
    // No scheme written: said as such, not as the scheme the URL parser made of the host (`om.corp:`).
    [
      'om.corp:8443/api/public/v1.0',
      '--base-url must start with http:// or https:// (none is written before the host; expected https://host:port/api/public/v1.0)',
    ],
    ['localhost:8080/api/public/v1.0', '--base-url must start with http:// or https://'],
    ['127.0.0.1:8080/api/public/v1.0', '--base-url must start with http:// or https://'],
    ['not a url', '--base-url is not a URL: "not a url" (expected https://host:port/api/public/v1.0)'],
  ])('refuses %s', (value, problem) => {
    const checked = checkPublicApiBaseUrl('--base-url', value);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.problem).toContain(problem);
  });

  it('never quotes credentials, in a URL or in a value that does not parse', () => {
    for (const value of ['https://gitopsbt:s3cr3t-key@om.corp/api/public/v1.0', 'gitopsbt:s3cr3t-key@ om corp']) {
      const checked = checkPublicApiBaseUrl('OPSMAN_BASE_URL', value);
      expect(checked.ok).toBe(false);
      expect(checked.ok ? '' : checked.problem).not.toContain('s3cr3t');
      expect(checked.ok ? '' : checked.problem).toMatch(/^OPSMAN_BASE_URL /);
    }
  });
});
