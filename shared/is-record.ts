/**
 * The one test for "a JSON object": parsed input (YAML, HTTP bodies, stored documents, events) is checked with it
 * before its members are read. Arrays and null are not records, though `typeof` says "object" for both.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
