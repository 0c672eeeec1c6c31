/**
 * Text styles of the renderers: ANSI colours on a terminal, identity elsewhere. Renderers take a Style, so they stay
 * pure and the CLI alone decides whether colour is on (TTY, --no-color, NO_COLOR, FORCE_COLOR).
 */

/** How each kind of text is decorated. Every function returns its input, possibly wrapped in escape codes. */
export interface Style {
  create(text: string): string;
  update(text: string): string;
  delete(text: string): string;
  adopt(text: string): string;
  blocked(text: string): string;
  drift(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  error(text: string): string;
  ok(text: string): string;
}

const identity = (text: string): string => text;

/** No decoration: for pipes, files, --no-color and NO_COLOR. */
export const PLAIN_STYLE: Style = {
  create: identity,
  update: identity,
  delete: identity,
  adopt: identity,
  blocked: identity,
  drift: identity,
  bold: identity,
  dim: identity,
  error: identity,
  ok: identity,
};

function sgr(open: string, close: string): (text: string) => string {
  return (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
}

/** ANSI colours, chosen to match `terraform plan`: green create, yellow update, red delete. */
export const ANSI_STYLE: Style = {
  create: sgr('32', '39'),
  update: sgr('33', '39'),
  delete: sgr('31', '39'),
  adopt: sgr('36', '39'),
  blocked: sgr('1;31', '22;39'),
  drift: sgr('35', '39'),
  bold: sgr('1', '22'),
  dim: sgr('2', '22'),
  error: sgr('31', '39'),
  ok: sgr('32', '39'),
};

/** The style for a colour decision. */
export function styleFor(color: boolean): Style {
  return color ? ANSI_STYLE : PLAIN_STYLE;
}
