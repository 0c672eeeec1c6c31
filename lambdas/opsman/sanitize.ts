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

/** Replaces every run of `text` that is the start of `form`, at least MIN_PARTIAL characters long, by the mark. */
function redactStarts(text: string, form: string): string {
  const shortest = (URL_AUTHORITY.exec(form)?.[0].length ?? 0) + MIN_PARTIAL;
  if (form.length <= shortest) return text;
  const head = form.slice(0, shortest);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, from)) {
    let end = at + shortest;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end++;
    out += text.slice(from, at) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
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
  // After every whole form is gone: what is left of a secret can only be a part of one.
  for (const form of forms) out = redactStarts(out, form);
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
