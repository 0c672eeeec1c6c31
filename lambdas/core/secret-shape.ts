/**
 * Shape checks of resolved secret values, run at plan time (and again before a write) so that a bad value blocks its
 * alert config instead of failing as an Ops Manager 400 mid-apply, or worse being stored.
 *
 * Only what the contract states is checked, plus what no credential legitimately has:
 * - every field: not empty, no leading or trailing white space (a newline written by `echo` into a secrets file), no
 *   control character anywhere, and not a redaction mask (sending one would overwrite the real secret);
 * - webhookUrl ("URL of a webhook") and microsoftTeamsWebhookUrl ("Incoming-webhook URL of a team-chat channel"): an
 *   absolute http or https URL with a host (a webhook is called over HTTP; Ops Manager redacts one keeping its scheme
 *   and host, shared/reference/ops-manager-api.md).
 * Keys and tokens have no documented format, so none is invented for them.
 *
 * A problem is said in words ("ends with a newline"): never the value, nor any part of it (its scheme included).
 */
import { looksMasked } from './notification-types.ts';

/** Fields whose value Ops Manager calls as a webhook: an absolute http(s) URL. */
const URL_FIELDS: ReadonlySet<string> = new Set(['webhookUrl', 'microsoftTeamsWebhookUrl']);

/** True when the value holds a C0 control, DEL or a C1 control: no credential or URL holds one. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Line ends: named apart from other white space because `echo >> file` is how they get there. */
const NEWLINE = /[\n\r\u2028\u2029]/;

/** What is wrong with the ends of a value, or undefined. JS `\s` covers NBSP, BOM and the Unicode spaces too. */
function edgeProblem(value: string): string | undefined {
  if (value.trim() === '') return 'is only white space';
  const last = value.at(-1) as string;
  if (NEWLINE.test(last)) return 'ends with a newline';
  if (/\s/.test(last)) return 'ends with white space';
  const first = value[0] as string;
  if (NEWLINE.test(first)) return 'starts with a newline';
  if (/\s/.test(first)) return 'starts with white space';
  return undefined;
}

/**
 * True for an absolute http(s) URL with a host. The scheme and `//` are required literally, followed at once by the
 * authority, and no backslash appears anywhere: the WHATWG parser would accept `https:host`, `https:\\host`,
 * `https:///host` or `https://\\host` and fix them up (it reads a backslash as a slash and skips extra slashes), while
 * an RFC 3986 parser, as a server's may be, finds no host in them (and no backslash is allowed in a URL).
 */
export function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^/\\]/i.test(value) || value.includes('\\')) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The parser's error message quotes its input: it is dropped, never shown.
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/**
 * What is wrong with the resolved value of a secret field, as a predicate that completes "the value ..." ("is empty",
 * "ends with a newline", "is not an absolute http(s) URL"); undefined when it passes every check. The answer never
 * contains the value or any part of it.
 */
export function secretShapeProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return 'is not a string';
  if (value === '') return 'is empty';
  const edge = edgeProblem(value);
  if (edge !== undefined) return edge;
  if (hasControlCharacter(value)) return 'contains a control character';
  if (looksMasked(value)) return 'looks like a redaction mask (****); refusing to send it';
  if (URL_FIELDS.has(field) && !isAbsoluteHttpUrl(value)) return 'is not an absolute http(s) URL';
  return undefined;
}
