/**
 * Keeps secrets out of errors: scrubs known secret values from any text a server or a library hands back, and
 * replaces library errors (which may hold sockets, requests or headers) with plain copies.
 */
import { SECRET_NOTIFICATION_FIELDS } from './types.ts';

/** Body fields whose values are secret, beyond the notification ones. */
const EXTRA_SECRET_FIELDS = ['awsSecretKey', 'awsAccessKey', 'privateKey', 'password', 'secret'];
const SECRET_FIELDS: ReadonlySet<string> = new Set<string>([...SECRET_NOTIFICATION_FIELDS, ...EXTRA_SECRET_FIELDS]);
const REDACTED = '[REDACTED]';

/** Secrets shorter than this are never scrubbed (too common in ordinary text), nor forms of them so short. */
const MIN_SECRET_LENGTH = 4;

/** Collects the values of secret fields anywhere in a JSON value (short values are ignored: too common to scrub). */
export function collectSecretValues(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) collectSecretValues(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const [field, item] of Object.entries(value)) {
      if (SECRET_FIELDS.has(field) && typeof item === 'string' && item.length >= MIN_SECRET_LENGTH) into.push(item);
      else collectSecretValues(item, into);
    }
  }
  return into;
}

/**
 * The texts a secret may take in what a server hands back: as sent, JSON-escaped (a server or proxy quoting the raw
 * request body shows `a\"b` for a secret `a"b`), JSON-escaped with `\/` for `/` (as some encoders write),
 * percent-encoded (a URL quoted in a URL), percent-decoded, and, for a URL, as a URL parser writes it back (host
 * lower-cased, user and password left out: the path of a chat webhook is its secret). Longest first, so that no form
 * is cut by a shorter one.
 */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = new Set([secret, json, json.replaceAll('/', '\\/'), encodeURIComponent(secret)]);
  // A decoded form can be shorter than the secret (`%41%42` is `AB`): as short as that, it would hit ordinary text.
  for (const parsed of parsedForms(secret)) if (parsed.length >= MIN_SECRET_LENGTH) forms.add(parsed);
  return [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
}

/**
 * The percent-decoded text of `secret` (also as a form would decode it, `+` as a space) and, when it is an http(s) URL,
 * its parser's text without credentials.
 */
function parsedForms(secret: string): string[] {
  const forms: string[] = [];
  for (const encoded of [secret, secret.replaceAll('+', ' ')]) {
    try {
      forms.push(decodeURIComponent(encoded));
    } catch {
      // Not valid percent-encoding: no server decoded it either.
    }
  }
  if (!/^https?:\/\//i.test(secret) || !URL.canParse(secret)) return forms;
  const url = new URL(secret);
  url.username = '';
  url.password = '';
  // A bare origin (`https://hooks.example/`) is no secret of its own, and would redact every mention of the host.
  if (url.pathname.length > 1 || url.search !== '') forms.push(url.href);
  return forms;
}

/**
 * Shortest start of a secret that is redacted on its own. Servers quote a long value cut short (Jackson and most Java
 * validators clip what they quote, `"abcd..."`): the whole secret is then never in the text, but its start is. Twelve
 * characters is long enough not to hit ordinary words, short enough to catch any useful part of a key or token.
 */
const MIN_PARTIAL = 12;

/**
 * A URL's scheme and host (`http://10.0.1.5:8080`, also JSON-escaped `https:\/\/host`), which are no secret of their
 * own: a cut-short quote counts only past them, or every URL of that host (Ops Manager's own, on the same network)
 * would be redacted up to where it parts from the secret. A URL with a user and password is secret from its `//` on.
 */
const URL_AUTHORITY = /^[a-z][a-z0-9+.-]*:(?:\/\/|\\\/\\\/)[^/\\?#@\s]*(?=[/\\?#]|$)/i;

/**
 * Where `form` stands in `text`: every run that is the start of it, at least MIN_PARTIAL characters past a URL's
 * scheme and host (a whole occurrence is one such run), as `[start, end)` pairs in order.
 */
function startsOf(text: string, form: string): [number, number][] {
  const shortest = (URL_AUTHORITY.exec(form)?.[0].length ?? 0) + MIN_PARTIAL;
  if (form.length <= shortest) return [];
  const head = form.slice(0, shortest);
  const runs: [number, number][] = [];
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, runs[runs.length - 1]?.[1] ?? 0)) {
    let end = at + shortest;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end++;
    runs.push([at, end]);
  }
  return runs;
}

/** `text` with each of `spans` (`[start, end)`, in any order, overlapping or not) replaced by the mark. */
function redactSpans(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    if (start >= from) out += `${text.slice(from, start)}${REDACTED}`;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * A character escape a server may write inside a quoted value: JSON's `\uXXXX` (Gson writes `< > & = '` so by
 * default, Jackson every non-ASCII character when asked), `\"`, `\\` and `\/`; HTML's named and numeric character
 * references (`&amp;`, `&quot;`, `&#61;`, `&#x3D;`); and a percent-encoded byte (`%3D`; taken as one character, which
 * is right for ASCII, the only part of a secret a URL quotes that way in part). A secret quoted with
 * any mix of them holds none of its forms, and a cut-short match would stop at the first escape, leaving the rest of it
 * (a webhook URL's `&token=...`) in view.
 */
const ESCAPE =
  /\\u([0-9a-fA-F]{4})|\\(["\\/])|&(amp|lt|gt|quot|apos);|&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));|%([0-9a-fA-F]{2})/g;

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** One escape of the text: where it starts in the decoded text and in the text, and how long it is in each. */
interface Escape {
  at: number;
  from: number;
  length: number;
  decoded: number;
}

/** `text` with every ESCAPE decoded, and the escapes, to map a place in it back to the text; undefined without one. */
function decodedView(text: string): { decoded: string; escapes: Escape[] } | undefined {
  const escapes: Escape[] = [];
  let decoded = '';
  let from = 0;
  for (const match of text.matchAll(ESCAPE)) {
    const [whole, unit, escaped, named, hex, dec, percent] = match;
    let char: string;
    if (unit !== undefined) char = String.fromCharCode(Number.parseInt(unit, 16));
    else if (escaped !== undefined) char = escaped;
    else if (named !== undefined) char = NAMED[named] ?? whole;
    else if (percent !== undefined) char = String.fromCharCode(Number.parseInt(percent, 16));
    else {
      const code = hex === undefined ? Number(dec) : Number.parseInt(hex, 16);
      if (code > 0x10ffff) continue; // past Unicode: no character, left as text
      char = String.fromCodePoint(code);
    }
    decoded += text.slice(from, match.index);
    escapes.push({ at: decoded.length, from: match.index, length: whole.length, decoded: char.length });
    decoded += char;
    from = match.index + whole.length;
  }
  if (escapes.length === 0) return undefined;
  return { decoded: decoded + text.slice(from), escapes };
}

/** The last of `escapes` (in order) that starts at or before `at` in the decoded text, by bisection; or undefined. */
function escapeAtOrBefore(escapes: readonly Escape[], at: number): Escape | undefined {
  let low = 0;
  let high = escapes.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((escapes[middle] as Escape).at <= at) low = middle + 1;
    else high = middle;
  }
  return escapes[low - 1];
}

/** Where the decoded text's `[start, end)` stands in the text; an escape it cuts through is taken whole. */
function textSpan(escapes: readonly Escape[], start: number, end: number): [number, number] {
  const first = escapeAtOrBefore(escapes, start);
  const from =
    first === undefined
      ? start
      : start < first.at + first.decoded
        ? first.from
        : start - first.at - first.decoded + first.from + first.length;
  const last = escapeAtOrBefore(escapes, end - 1);
  const to =
    last === undefined
      ? end
      : end <= last.at + last.decoded
        ? last.from + last.length
        : end - last.at - last.decoded + last.from + last.length;
  return [from, to];
}

/**
 * Redacts each form of a secret, whole or cut short, that `text` holds with some of its characters escaped
 * (ESCAPE): the match is made on the decoded text, and the escaped run it came from is what is redacted.
 */
function redactEscaped(text: string, forms: readonly string[]): string {
  const view = decodedView(text);
  if (view === undefined) return text;
  const spans: [number, number][] = [];
  for (const form of forms) {
    for (const [start, end] of startsOf(view.decoded, form)) spans.push(textSpan(view.escapes, start, end));
    // Whole, however short, as the plain pass redacts it (secretForms never gives an empty form).
    for (let at = view.decoded.indexOf(form); at !== -1; at = view.decoded.indexOf(form, at + form.length)) {
      spans.push(textSpan(view.escapes, at, at + form.length));
    }
  }
  return redactSpans(text, spans);
}

/**
 * Replaces every occurrence of the secrets (in each of their forms), every start of one that a server cut short (12
 * characters or more, past a URL's scheme and host), and anything shaped like an Authorization header value, in `text`.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first across all secrets: one secret inside another would otherwise cut the longer one apart.
  const forms = secrets.flatMap(secretForms).sort((a, b) => b.length - a.length);
  for (const form of forms) out = out.split(form).join(REDACTED);
  // A form with characters escaped (whole or cut short), before the cut-short pass would take only its head.
  out = redactEscaped(out, forms);
  // After every whole form is gone: what is left of a secret can only be a part of one.
  for (const form of forms) out = redactSpans(out, startsOf(out, form));
  return out
    .replace(/\bDigest\s+username=[^\r\n]*/gi, `Digest ${REDACTED}`)
    .replace(/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]{8,}/g, `$1 ${REDACTED}`);
}

/**
 * A plain Error with the name, code and scrubbed message of `error` and nothing else: undici's errors can carry a
 * socket, and any library's error could carry request options with an Authorization header.
 */
export function sanitizeCause(error: unknown, secrets: readonly string[]): Error {
  if (!(error instanceof Error)) return new Error(scrub(String(error), secrets));
  const copy = new Error(scrub(error.message, secrets));
  copy.name = error.name;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') Object.defineProperty(copy, 'code', { value: code, enumerable: true });
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}
