/**
 * Names of the secret references `export` writes. Ops Manager redacts every secret field on read, so the value is never
 * known: the YAML gets a reference the user fills in, named after what it belongs to.
 */
import { formatSecretRef } from '../desired/secret-ref.ts';

/**
 * `opsman/<projectId>#<alert key>.<field>`, with the field's occurrence number in the config from the second on
 * (`.webhookUrl2`): two WEBHOOK notifications of one config need two references. Keys hold only lower-case letters,
 * digits and `-`, so no two references of an export map to the same `OPSMAN_SECRET_*` environment variable.
 */
export function exportedSecretRef(projectId: string, key: string, field: string, occurrence: number): string {
  return formatSecretRef(`opsman/${projectId}`, `${key}.${field}${occurrence > 1 ? occurrence : ''}`);
}
