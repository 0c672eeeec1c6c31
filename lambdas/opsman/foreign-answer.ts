/**
 * An error status whose body is not Ops Manager's five-field JSON: a reverse proxy's or load balancer's page, another
 * web server, a wrong base URL path. Ops Manager itself always explains an error in JSON, so an answer without that body
 * says more about where the request went than about the request: the message shows what answered (content type and a
 * short, safe excerpt) and what to check, instead of an empty detail.
 */
import type { HttpResponse } from './auth-exchange.ts';
import { PUBLIC_API_PATH } from './base-url.ts';
import type { SettingNames } from './options.ts';
import { scrub } from './sanitize.ts';

/** Longest excerpt of a foreign body shown (it may be a whole HTML page). */
export const MAX_EXCERPT = 100;

/** What answered instead of Ops Manager. */
export interface ForeignAnswer {
  /** The media type of the body (`text/html`), or `no content type`. */
  contentType: string;
  /** A short excerpt: an HTML page's title, else its text; printable ASCII only, secrets scrubbed; may be empty. */
  excerpt: string;
  /** The `Location` header as sent (a redirect's target), secrets scrubbed; absent when there is none. */
  location?: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function textOfHtml(html: string): string {
  const title = /<title[^>]*>([^<]{1,300})<\/title>/i.exec(html)?.[1];
  if (title !== undefined && title.trim() !== '') return title;
  return html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
}

/** The content type and a safe excerpt of `response`'s body. */
export function foreignAnswer(response: HttpResponse, secrets: readonly string[]): ForeignAnswer {
  const header = response.headers['content-type'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? '';
  const contentType = /^[\w.+-]+\/[\w.+-]+/.exec(raw.trim())?.[0]?.toLowerCase() ?? 'no content type';
  const body = response.text.slice(0, 20_000);
  const looksHtml = contentType.includes('html') || /^\s*</.test(body);
  const decoded = (looksHtml ? textOfHtml(body) : body)
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name] ?? ' ')
    // Numeric character references too (`&#47;`, `&#x2F;`): a page quoting the request may encode every punctuation
    // mark, and a secret written that way would not match the scrub below.
    .replace(/&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));/g, (_, hex: string | undefined, dec: string | undefined) => {
      const code = hex === undefined ? Number(dec) : Number.parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    });
  // Scrubbed before it is clipped: a secret the cut goes through would no longer match, and its start would show.
  const text = scrub(decoded, secrets)
    // Printable ASCII only: a body must not move the cursor or colour a terminal.
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const clipped = text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT - 3)}...` : text;
  const location = response.headers.location;
  const target = Array.isArray(location) ? location[0] : location;
  if (target === undefined) return { contentType, excerpt: clipped };
  return { contentType, excerpt: clipped, location: scrub(target, secrets) };
}

/**
 * Where a redirect points, as a message shows it: origin and path resolved against the request's URL, without the
 * query or fragment (a login gateway's redirect may carry a state or a token there); printable ASCII, clipped.
 */
function redirectTarget(location: string | undefined, url: URL): string | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  let target: URL;
  try {
    target = new URL(location.trim(), url);
  } catch {
    return undefined;
  }
  const shown = `${target.origin}${target.pathname}`.replace(/[^\x21-\x7e]+/g, '');
  return shown.length > 200 ? `${shown.slice(0, 197)}...` : shown;
}

/** What to check when a path the client builds under the base URL does not exist there. */
export function baseUrlHint(names: Pick<SettingNames, 'baseUrl'>): string {
  return `check ${names.baseUrl}: it must be Ops Manager's Public API root (https://host:port/api/public/v1.0), and a proxy in front of Ops Manager must pass that path on`;
}

/**
 * The detail of Ops Manager's own 404 for a path outside its Public API (`RESOURCE_NOT_FOUND: Cannot find resource
 * /om/api/public/v1.0/groups/...`: the base URL has a wrong prefix), with a hint at the base URL. A missing object under
 * the API (`Cannot find resource /api/public/v1.0/orgs/.../teams/...`) keeps its detail as it is.
 */
export function withUnknownPathHint(
  status: number,
  errorCode: string,
  detail: string,
  names: Pick<SettingNames, 'baseUrl'>,
): string {
  const path = /^Cannot find resource (\S+?)\.?$/.exec(detail)?.[1];
  if (status !== 404 || errorCode !== 'RESOURCE_NOT_FOUND' || path === undefined) return detail;
  if (path.startsWith(`${PUBLIC_API_PATH}/`)) return detail;
  return `${detail.replace(/\.$/, '')}; ${baseUrlHint(names)}`;
}

/**
 * What to check, by status: the base URL for a missing path or a redirect (never followed: the credentials and the
 * request stay with the base URL), the protocol for nginx's plain-HTTP page, else the proxy.
 */
function hintFor(
  status: number,
  answer: ForeignAnswer,
  url: URL,
  names: Pick<SettingNames, 'baseUrl'>,
  method: string,
): string {
  if (status >= 300 && status < 400) {
    const target = redirectTarget(answer.location, url);
    const where = target === undefined ? 'a redirect without a usable Location' : `a redirect to ${target}`;
    return `${where}, which the client does not follow (requests and credentials go to ${names.baseUrl} only): set ${names.baseUrl} to Ops Manager's Public API root itself`;
  }
  if (/plain HTTP request was sent to HTTPS port|HTTP request to an HTTPS server/i.test(answer.excerpt)) {
    return `the server speaks HTTPS on that port: write https:// in ${names.baseUrl}`;
  }
  // A write refused by method where reads are served is a proxy or firewall filtering methods, not a wrong base URL.
  if (status === 405 && method !== 'GET') {
    return `the server, or a proxy in front of Ops Manager, does not allow ${method} there: it must pass ${method} on to Ops Manager (else ${baseUrlHint(names)})`;
  }
  if (status === 404 || status === 405) return baseUrlHint(names);
  if (status === 502 || status === 503 || status === 504) {
    return 'a proxy or load balancer answered for Ops Manager, which may be down, restarting or unreachable from it';
  }
  return 'something other than Ops Manager answered (a proxy or load balancer?)';
}

/**
 * The detail of an error answered without an Ops Manager body: `<url> answered <status> without an Ops Manager error
 * body (<type>: "<excerpt>"); <hint>`. The URL is shown without its query string; `method` is the request's (a 405
 * to a write points at a proxy filtering methods, one to a GET at the base URL).
 */
export function foreignDetail(
  status: number,
  url: URL,
  answer: ForeignAnswer,
  names: Pick<SettingNames, 'baseUrl'>,
  method = 'GET',
): string {
  const where = `${url.origin}${url.pathname}`;
  const what = answer.excerpt === '' ? `${answer.contentType}, empty` : `${answer.contentType}: "${answer.excerpt}"`;
  return `${where} answered ${status} without an Ops Manager error body (${what}); ${hintFor(status, answer, url, names, method)}`;
}
