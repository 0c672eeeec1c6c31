/**
 * Secret references: `<secret id>#<json key>`. The id is a Secrets Manager name (letters, digits, / _ + = . @ -);
 * the key names a field of the secret's JSON object.
 */

/** The form of a secret reference (the schema's pattern). */
export const SECRET_REF_PATTERN = /^([A-Za-z0-9/_+=.@-]+)#([A-Za-z0-9_.-]+)$/;

/** Splits a reference into secret id and JSON key, or returns undefined when it is malformed. */
export function parseSecretRef(ref: string): { id: string; key: string } | undefined {
  const match = SECRET_REF_PATTERN.exec(ref);
  return match?.[1] && match[2] ? { id: match[1], key: match[2] } : undefined;
}

/** `<id>#<key>`. */
export function formatSecretRef(id: string, key: string): string {
  return `${id}#${key}`;
}
