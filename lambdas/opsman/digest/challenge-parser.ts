/**
 * Parser of `WWW-Authenticate` values (RFC 7235 section 4.1): a comma list of challenges, each a scheme followed by a
 * token68 or by `name=value` parameters whose values are tokens or quoted strings, in any order; and of
 * `Authentication-Info` values (RFC 7615), the same parameters without a scheme.
 */
import { DigestError } from './errors.ts';

/** One parsed challenge: the scheme (as sent) and its parameters with lower-cased names. */
export interface AuthChallenge {
  scheme: string;
  params: Map<string, string>;
  /** The token68 form (`Negotiate abc==`), when the challenge has no parameters. */
  token68?: string;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** Bare values: RFC tokens, plus the characters real servers leave unquoted in base64 nonces. */
const BARE_VALUE = /[!#$%&'*+\-.^_`|~0-9A-Za-z/=:@?[\]{}()<>]/;
const TOKEN68_TAIL = /^[A-Za-z0-9\-._~+/]+=*[ \t]*(,|$)/;

class Cursor {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }
  peek(): string {
    return this.text[this.pos] ?? '';
  }
  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }
  skipSpacesAndCommas(): void {
    while (this.peek() === ' ' || this.peek() === '\t' || this.peek() === ',') this.pos++;
  }
  readToken(): string {
    const start = this.pos;
    while (!this.done && TCHAR.test(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }
  fail(reason: string): never {
    const snippet = this.text.length > 120 ? `${this.text.slice(0, 117)}...` : this.text;
    throw new DigestError(
      'DIGEST_MALFORMED_CHALLENGE',
      `malformed WWW-Authenticate header at character ${this.pos + 1}: ${reason} (header: ${JSON.stringify(snippet)})`,
    );
  }
  /**
   * True when a `name =` parameter starts here (as opposed to the next challenge's scheme). Right after a scheme, a
   * token68 (`abc==`) looks like a parameter with an empty value, so it is ruled out there.
   */
  atParameter(afterScheme: boolean): boolean {
    const rest = this.text.slice(this.pos);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=/.test(rest)) return false;
    return !afterScheme || !TOKEN68_TAIL.test(rest);
  }
}

function readQuoted(cursor: Cursor): string {
  cursor.pos++; // opening quote
  let value = '';
  for (;;) {
    if (cursor.done) cursor.fail('unterminated quoted string');
    const ch = cursor.peek();
    cursor.pos++;
    if (ch === '"') return value;
    if (ch === '\\') {
      if (cursor.done) cursor.fail('dangling escape in quoted string');
      value += cursor.peek();
      cursor.pos++;
    } else {
      value += ch;
    }
  }
}

function readValue(cursor: Cursor): string {
  if (cursor.peek() === '"') return readQuoted(cursor);
  const start = cursor.pos;
  while (!cursor.done && BARE_VALUE.test(cursor.peek())) cursor.pos++;
  if (cursor.pos === start) cursor.fail('expected a token or a quoted string');
  return cursor.text.slice(start, cursor.pos);
}

function readParams(cursor: Cursor, challenge: AuthChallenge): void {
  for (;;) {
    const name = cursor.readToken().toLowerCase();
    if (name === '') cursor.fail('expected a parameter name');
    cursor.skipSpaces();
    if (cursor.peek() !== '=') cursor.fail(`expected '=' after parameter '${name}'`);
    cursor.pos++;
    cursor.skipSpaces();
    const value = readValue(cursor);
    if (challenge.params.has(name)) cursor.fail(`parameter '${name}' appears twice`);
    challenge.params.set(name, value);
    cursor.skipSpaces();
    if (cursor.done) return;
    if (cursor.peek() !== ',') cursor.fail(`expected ',' after the value of '${name}'`);
    cursor.skipSpacesAndCommas();
    if (cursor.done || !cursor.atParameter(false)) return; // the next challenge begins
  }
}

/** Parses one header value into its challenges. Throws {@link DigestError} `DIGEST_MALFORMED_CHALLENGE`. */
export function parseAuthenticateHeader(value: string): AuthChallenge[] {
  const cursor = new Cursor(value);
  const challenges: AuthChallenge[] = [];
  cursor.skipSpacesAndCommas();
  while (!cursor.done) {
    const scheme = cursor.readToken();
    if (scheme === '') cursor.fail('expected an authentication scheme');
    const challenge: AuthChallenge = { scheme, params: new Map() };
    challenges.push(challenge);
    if (!cursor.done && cursor.peek() !== ' ' && cursor.peek() !== '\t' && cursor.peek() !== ',') {
      cursor.fail(`expected a space after the scheme '${scheme}'`);
    }
    cursor.skipSpaces();
    if (cursor.done) break;
    if (cursor.peek() === ',') {
      cursor.skipSpacesAndCommas();
      continue;
    }
    if (cursor.atParameter(true)) {
      readParams(cursor, challenge);
    } else if (TOKEN68_TAIL.test(value.slice(cursor.pos))) {
      const start = cursor.pos;
      while (!cursor.done && cursor.peek() !== ',' && cursor.peek() !== ' ' && cursor.peek() !== '\t') cursor.pos++;
      challenge.token68 = value.slice(start, cursor.pos);
      cursor.skipSpacesAndCommas();
    } else {
      cursor.fail(`expected parameters after the scheme '${scheme}'`);
    }
  }
  if (challenges.length === 0) cursor.fail('no challenge');
  return challenges;
}

/**
 * The parameters of an `Authentication-Info` value (`rspauth="…", nextnonce="…", qop=auth, …`), names lower-cased;
 * undefined when it is malformed. Never throws: the header is optional, and a response that carries a broken one
 * still succeeded.
 */
export function parseAuthenticationInfo(value: string): Map<string, string> | undefined {
  const cursor = new Cursor(value);
  const holder: AuthChallenge = { scheme: '', params: new Map() };
  try {
    cursor.skipSpacesAndCommas();
    if (cursor.done) return holder.params;
    readParams(cursor, holder);
    return cursor.done ? holder.params : undefined;
  } catch (error) {
    if (error instanceof DigestError) return undefined;
    throw error;
  }
}
