/** How event refusals quote field names and values: briefly, and never a value longer than 40 characters. */

/** Most field names an error message lists; the rest are counted. */
const LISTED_FIELDS = 5;

/**
 * Field names for a message, sorted: at most five, each cut to 40 characters. An event is up to 6 MB, so its names
 * are quoted only in part: the answer and the log line stay short whatever was sent.
 */
export function fieldList(names: readonly string[]): string {
  const shown = [...names]
    .sort()
    .slice(0, LISTED_FIELDS)
    .map((name) => (name.length > 40 ? `${name.slice(0, 40)}… (${name.length} characters)` : name));
  const more = names.length - shown.length;
  return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** A short, value-safe description of what was found. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
