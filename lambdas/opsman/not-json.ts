/**
 * Why a 2xx body could not be parsed as JSON, in words a message can carry: a body compressed although the client
 * never asked for it (it sends no Accept-Encoding, and undici does not decompress) is named as such, instead of V8's
 * parse error quoting its first binary bytes; any other parse error keeps V8's text with non-printable characters
 * escaped and its excerpt of the body dropped, so that a body cannot put control characters (a terminal escape) or a
 * secret into an error message or a log. An HTML
 * page (a login gateway answering 200 for the API) is named as one.
 */

/** `\u001b` for each character outside printable ASCII. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The reason, for `<route>: the response is not JSON (<reason>)`. */
export function notJsonReason(
  error: unknown,
  response: { headers: Record<string, string | string[] | undefined>; text: string },
): string {
  const { headers } = response;
  const header = headers['content-encoding'];
  const encoding = (Array.isArray(header) ? header.join(', ') : (header ?? '')).trim();
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    return `its body is ${printable(encoding.slice(0, 40))}-encoded (Content-Encoding), which the client never asks for: a proxy in front of Ops Manager compresses answers unasked`;
  }
  const type = headers['content-type'];
  const contentType = (Array.isArray(type) ? type[0] : type) ?? '';
  if (/html/i.test(contentType) || /^\s*<(!doctype|html|head|body)\b/i.test(response.text.slice(0, 200))) {
    // An HTML page where JSON was asked for: a single sign-on or login gateway, or another web server.
    return 'it is an HTML page: a login gateway or another web server answered in place of the Public API';
  }
  return printable(withoutExcerpt(error instanceof Error ? error.message : String(error)));
}

/**
 * V8's parse error without the excerpt of the body it quotes (`Unexpected token 'x', ..."apiToken":xoxb-1234"... is not
 * valid JSON`): some ten characters either side of the fault, which may be those of a secret (a broken echo of a write,
 * another config's key in a list). The unexpected character alone stays.
 */
function withoutExcerpt(message: string): string {
  return message.replace(
    /, (?:\.\.\.)?"[\s\S]*"(?:\.\.\.)? is not valid JSON$/,
    ' (the body is not valid JSON; not quoted)',
  );
}
