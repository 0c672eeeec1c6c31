/**
 * Text made inert for a terminal, a log reader or a pull-request comment: every character that is acted on rather
 * than shown is written as its `\uXXXX` escape, so quoted text stays on its line and reads as it is stored.
 */

/**
 * Control characters (C0 such as ESC and newline, DEL, C1 such as CSI), format characters (bidi embeddings,
 * overrides and isolates, zero-width spaces and joiners, the BOM, tag characters), the line and paragraph separators
 * and lone surrogates. Bidi and zero-width characters print nothing or reorder what follows them, so a value holding
 * one would read as another value (the "Trojan Source" trick); control characters move the cursor, clear the screen or
 * retitle the window.
 */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;

/** `text` made printable line by line: its newlines are kept (a message of several lines), nothing else is. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/**
 * `text` with each character of NOT_PRINTABLE as `\uXXXX` (a character beyond the BMP as its two UTF-16 escapes, as
 * JSON writes it), so that an escape inside a JSON string stays valid JSON.
 */
export function printable(text: string): string {
  return text.replace(NOT_PRINTABLE, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
