/**
 * Per-field ignore rules of alert configs (`ignoreFields`, Terraform's `ignore_changes`): the desired value of an
 * ignored member is used when the config is created; afterwards the live value is kept. Everything that decides "in
 * sync", "drifted" or "the same config" goes through here, so that an ignored difference is none of them:
 * - planning and writing use the desired body with the live values of its ignored members (`withLiveIgnored`): its
 *   text equals the live text when only those differ, and a full PUT sends the human's values back unchanged;
 * - drift compares texts with the ignored members set to one neutral value on both sides (`ignoredText`), and adoption
 *   too, except that an ignored metricThreshold keeps its metricName (`adoptionText`);
 * - the non-convergence guard's identity leaves them out (`identityBody`), so a human's edit does not re-arm it.
 */
import type { AlertConfig } from '../opsman/types.ts';
import type { DesiredAlertBody } from './alert-body.ts';
import type { IgnorableField } from './desired/enums.ts';
import { desiredText, type LiveView, liveText, textDigest } from './normalise.ts';
import type { OwnedAlertConfig } from './ports.ts';
import { modelledCopy } from './unmodelled.ts';

/** The members an alert body or a live config has that ignoreFields may name. */
interface IgnorableMembers {
  enabled?: boolean;
  matchers?: unknown;
  threshold?: unknown;
  metricThreshold?: unknown;
}

/** The ignored members of a body, or an empty list. */
export function ignoredOf(body: { ignoreFields?: readonly IgnorableField[] }): readonly IgnorableField[] {
  // A hand-made saved plan may carry anything here: only a list counts.
  return Array.isArray(body.ignoreFields) ? body.ignoreFields : [];
}

/**
 * `body` with each member it ignores taken from `live` (a copy; `body` itself when it ignores none): what an update
 * or an adoption sends, and what the plan shows as `after`, since that is what Ops Manager will hold.
 */
export function withLiveIgnored(body: DesiredAlertBody, live: AlertConfig): DesiredAlertBody {
  const fields = ignoredOf(body);
  return fields.length === 0 ? body : withMembersOf({ ...body }, live, fields);
}

/**
 * `into` (a copy the caller made) with each of `fields` set to its value in `from` (absent stays absent). Only the
 * members this version models are taken (unmodelled.ts): a newer Ops Manager's `metricThreshold.scale` sent back in a
 * full PUT may be refused (read-only, or unknown to the server that gets the request), failing every update.
 */
function withMembersOf<T extends IgnorableMembers>(into: T, from: IgnorableMembers, fields: readonly string[]): T {
  const out: IgnorableMembers = into;
  for (const field of fields) {
    if (field === 'enabled') out.enabled = from.enabled === true;
    else if (field === 'matchers') {
      const matchers = Array.isArray(from.matchers) ? (from.matchers as unknown[]) : [];
      out.matchers = matchers.map((m) => modelledCopy(m, 'matcher'));
    } else if (field === 'threshold' || field === 'metricThreshold') {
      if (from[field] === undefined || from[field] === null) delete out[field];
      else out[field] = modelledCopy(from[field], 'threshold');
    }
  }
  return into;
}

/** A shallow copy of `value` with each of `fields` set to one neutral value (absent, false, no matchers). */
function neutralised<T extends IgnorableMembers>(value: T, fields: readonly string[]): T {
  const out: IgnorableMembers = { ...value };
  for (const field of fields) {
    if (field === 'enabled') out.enabled = false;
    else if (field === 'matchers') out.matchers = [];
    else if (field === 'threshold') delete out.threshold;
    else if (field === 'metricThreshold') delete out.metricThreshold;
  }
  return out as T;
}

/**
 * `neutralised`, keeping what an alert measures: an ignored metricThreshold still holds its metricName. A person may
 * tune the threshold of an alert, but a config of another metric is another alert, never the same one to adopt.
 */
function forMatching<T extends IgnorableMembers>(value: T, fields: readonly string[]): T {
  const out = neutralised(value, fields);
  const metric = fields.includes('metricThreshold') ? value.metricThreshold : undefined;
  if (metric !== null && typeof metric === 'object' && 'metricName' in metric) {
    out.metricThreshold = { metricName: (metric as { metricName: unknown }).metricName };
  }
  return out;
}

/** The canonical text a desired body that ignores `fields` is adopted by: equal to a live config's `adoptionLiveText`. */
export function adoptionText(body: DesiredAlertBody, fields: readonly string[]): string {
  return desiredText(forMatching(body, fields));
}

/** The canonical text of a live config that adoption under ignoreFields `fields` matches by (ignored-index.ts). */
export function adoptionLiveText(live: AlertConfig, fields: readonly string[]): string {
  return liveText(forMatching(live, fields));
}

/** The canonical text of a desired body with `fields` neutralised: equal to a live config's `ignoredLiveText`. */
export function ignoredText(body: DesiredAlertBody, fields: readonly string[]): string {
  return desiredText(neutralised(body, fields));
}

/** The canonical text of a live config with `fields` neutralised: what drift under ignoreFields compares. */
export function ignoredLiveText(live: AlertConfig, fields: readonly string[]): string {
  return liveText(neutralised(live, fields));
}

/**
 * The `appliedDigest` of a body written: the digest of its canonical text, with its ignored members neutralised when
 * it has some (the record then lists them in `ignoredFields`, so drift is judged without them).
 */
export function appliedDigestOf(body: DesiredAlertBody, text: string): string {
  const fields = ignoredOf(body);
  return textDigest(fields.length === 0 ? text : ignoredText(body, fields));
}

/**
 * The digest of a live config to compare with a record's `appliedDigest`: its view's, or the digest of its text
 * without the members the record was written with in `ignoredFields` (a human's edit of those is no drift). `body`,
 * the desired body of a config still in git: a member it ignores that the record does not list (ignoreFields added
 * since the last write, whose `appliedDigest` still holds the value then written) counts at its desired value, so
 * that a person's edit of it is no drift either, while an edit of any member still managed is.
 */
export function liveDigestFor(
  record: OwnedAlertConfig,
  live: AlertConfig,
  view: LiveView,
  body?: DesiredAlertBody,
): string {
  const recorded = record.ignoredFields ?? [];
  const wanted = body === undefined ? [] : ignoredOf(body);
  const added = wanted.length === 0 ? wanted : wanted.filter((field) => !recorded.includes(field));
  if (recorded.length === 0 && added.length === 0) return view.digest;
  const config = added.length === 0 ? live : withMembersOf({ ...live }, body as DesiredAlertBody, added);
  return textDigest(recorded.length === 0 ? liveText(config) : ignoredLiveText(config, recorded));
}

/**
 * The body the non-convergence guard identifies: with its ignored members neutralised, so that the live values
 * `withLiveIgnored` put in (a human's next edit) do not count as a change of the desired state. The same object when
 * it ignores none (identities stored by older releases stay valid).
 */
export function identityBody(body: DesiredAlertBody): DesiredAlertBody {
  const fields = ignoredOf(body);
  return fields.length === 0 ? body : neutralised(body, fields);
}

/**
 * Whether a field path (diffAlert's, or a FieldChange's) lies in one of `fields`: `enabled`, `matchers`,
 * `threshold.operator`, `metricThreshold.threshold`...
 */
export function inIgnored(path: string, fields: readonly string[]): boolean {
  const dot = path.indexOf('.');
  return fields.includes(dot < 0 ? path : path.slice(0, dot));
}
