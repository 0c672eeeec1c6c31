/**
 * The media type of request bodies. The real product's resources consume `application/json` only, and answer 415 to a
 * body labelled anything else (`text/plain`, or the `application/x-www-form-urlencoded` that `curl -d` sends unless
 * told otherwise); the emulator read such a body as JSON all the same, so a client that worked against it failed
 * against Ops Manager. A body without a Content-Type is still read as JSON (lenient: the label is missing, not wrong).
 */
import { apiErrors } from '../errors.ts';

/** The one media type a request body may be labelled with (parameters such as `charset` aside). */
export const JSON_MEDIA_TYPE = 'application/json';

/** Throws 415 UNSUPPORTED_MEDIA_TYPE when a non-empty body is labelled with another media type than JSON. */
export function checkMediaType(header: string | undefined, text: string): void {
  if (header === undefined || header.trim() === '' || text.trim() === '') return;
  const type = (header.split(';')[0] ?? '').trim().toLowerCase();
  if (type !== JSON_MEDIA_TYPE) throw apiErrors.unsupportedMediaType(type);
}
