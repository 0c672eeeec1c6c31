/**
 * Why a 2xx body could not be parsed as JSON, in words a message can carry: a body compressed although the client
 * never asked for it (it sends no Accept-Encoding, and undici does not decompress) is named as such, instead of V8's
 * parse error quoting its first binary bytes; any other parse error keeps V8's text with non-printable characters
 * escaped, so that a body cannot put control characters (a terminal escape) into an error message or a log.
 */

/** `\u001b` for each character outside printable ASCII. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The reason, for `<route>: the response is not JSON (<reason>)`. */
export function notJsonReason(error: unknown, headers: Record<string, string | string[] | undefined>): string {
  const header = headers['content-encoding'];
  const encoding = (Array.isArray(header) ? header.join(', ') : (header ?? '')).trim();
  if (encoding !== '' && encoding.toLowerCase() !== 'identity') {
    return `its body is ${printable(encoding.slice(0, 40))}-encoded (Content-Encoding), which the client never asks for: a proxy in front of Ops Manager compresses answers unasked`;
  }
  return printable(error instanceof Error ? error.message : String(error));
}
