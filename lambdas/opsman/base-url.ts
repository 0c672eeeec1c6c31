/**
 * The rule for the Ops Manager base URL that the product's entry points (the CLI, the Lambda handlers, the CDK
 * settings) accept: the root of the Public API, `http(s)://host[:port][/prefix]/api/public/v1.0`. The client itself
 * takes any http(s) URL (tests and proxies); the entry points are stricter because a base URL without the API path
 * only fails later, target by target, with a 404 that does not say why.
 */

/** The path every Ops Manager Public API URL is under (the blockstore admin path is below it too). */
export const PUBLIC_API_PATH = '/api/public/v1.0';

/** Either the base URL with trailing slashes dropped, or why it is refused (never quoting credentials). */
export type BaseUrlCheck = { ok: true; url: string } | { ok: false; problem: string };

/** Where the CLI takes its API key from: what a base URL carrying credentials is told to use instead. */
export const CLI_KEY_ADVICE = 'use OPSMAN_PUBLIC_KEY and OPSMAN_PRIVATE_KEY';

/** Where the Lambda functions take their API key from (the stack's settings and the functions' environment). */
export const SECRET_KEY_ADVICE =
  "the API key belongs in the stack's credentials secret, as publicKey and privateKey (its ARN is the CredentialsSecretArn output)";

/**
 * A base URL that does not parse, as an error may show it: quoted, or described by its length when it has an '@' (it
 * may hold credentials: `https://pub:priv@om corp/...`) or is long.
 */
export function unparsedUrlShown(value: string): string {
  return value.includes('@') || value.length > 200 ? `${value.length} characters` : JSON.stringify(value);
}

/**
 * Checks `value` as a Public API base URL; `name` (e.g. `--base-url`) starts every problem. `keyAdvice` says where the
 * entry point takes its API key from (the Lambda functions and the stack: the credentials secret), for a URL that
 * carries credentials.
 */
export function checkPublicApiBaseUrl(name: string, value: string, keyAdvice: string = CLI_KEY_ADVICE): BaseUrlCheck {
  const expected = `expected https://host:port${PUBLIC_API_PATH}`;
  // `om.corp:8443/api/public/v1.0` parses with `om.corp:` as its scheme, and `127.0.0.1:8080/...` does not parse:
  // either way the mistake is the missing `http://`, which is what the message then says.
  const noScheme = `${name} must start with http:// or https:// (none is written before the host; ${expected})`;
  const schemeWritten = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value.trim());
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    if (!schemeWritten && /^[^\s/@]+:\d+(\/|$)/.test(value.trim())) return { ok: false, problem: noScheme };
    return { ok: false, problem: `${name} is not a URL: ${unparsedUrlShown(value)} (${expected})` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    if (!schemeWritten) return { ok: false, problem: noScheme };
    return { ok: false, problem: `${name} must be http or https, found '${url.protocol}'` };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      problem: `${name} must not carry credentials: ${keyAdvice}`,
    };
  }
  if (url.search !== '' || url.hash !== '') {
    return { ok: false, problem: `${name} must not carry a query string or a fragment (${expected})` };
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(PUBLIC_API_PATH)) {
    return {
      ok: false,
      problem: `${name} must end in ${PUBLIC_API_PATH}, the root of Ops Manager's Public API; its path is '${url.pathname}' (${expected})`,
    };
  }
  url.pathname = path;
  return { ok: true, url: url.href };
}
