/**
 * Secret references: `<secret id>#<json key>`. The id is a Secrets Manager name (letters, digits, / _ + = . @ -);
 * the key names a field of the secret's JSON object.
 */

/** The form of a secret reference as the JSON schema writes it (one text: the schema and the parser use it alike). */
export const SECRET_REF_SCHEMA_PATTERN = '^[A-Za-z0-9/_+=.@-]+#[A-Za-z0-9_.-]+$';

/** The form of a secret reference. */
export const SECRET_REF_PATTERN = new RegExp(SECRET_REF_SCHEMA_PATTERN);

/** Splits a reference into secret id and JSON key, or returns undefined when it is malformed. */
export function parseSecretRef(ref: string): { id: string; key: string } | undefined {
  if (!SECRET_REF_PATTERN.test(ref)) return undefined;
  // Neither part may hold a '#': the one there is splits them.
  const at = ref.indexOf('#');
  return { id: ref.slice(0, at), key: ref.slice(at + 1) };
}

/** `<id>#<key>`. */
export function formatSecretRef(id: string, key: string): string {
  return `${id}#${key}`;
}
