/**
 * An owned alert config found in sync whose record says something else was last applied: the record is brought up to
 * what Ops Manager now holds, as a singleton's digest is ("last applied or verified equal").
 *
 * Two ways a record falls behind a config that matches git: a write that landed but whose answer was lost (a connection
 * reset after the server applied a PUT or PATCH: the run reports it failed and keeps the old record), and a person who
 * made in Ops Manager the same edit that was then committed to git (nothing to write). Left behind, the record's
 * `appliedDigest` is the old body, so a later edit putting the old value back reads as "what this tool last wrote":
 * planned as a change from git, with no drift reported, no attribution, and no update-fight streak.
 *
 * Only an apply refreshes (`plan` and `observe` save no state), and only in a target it may write; the check costs one
 * digest per in-sync config of an apply, and the refresh itself, rare, one request body built to fingerprint.
 */
import type { DesiredAlertBody } from './alert-body.ts';
import { appliedDigestOf, ignoredOf } from './ignore-fields.ts';
import type { OwnedAlertConfig } from './ports.ts';

/** The ignoreFields a write of `body` records (sorted, as apply-alerts.ts prepareBody records them), joined. */
function recordedIgnores(fields: readonly string[] | undefined): string {
  return fields === undefined ? '' : [...fields].sort().join(',');
}

/**
 * True when `record`, of a config whose live text equals `text` (the canonical text of `body`, the desired body with
 * the live values of its ignored members), says another body was last applied: another digest, or other ignoreFields.
 */
export function recordBehind(record: OwnedAlertConfig, body: DesiredAlertBody, text: string): boolean {
  if (record.appliedDigest !== appliedDigestOf(body, text)) return true;
  return recordedIgnores(record.ignoredFields) !== recordedIgnores(ignoredOf(body));
}
