/**
 * The last check of an exported alert config: the entry, as the loader reads it back, must normalise to exactly the
 * live config's normal form, since that equality is what lets `plan` adopt it. Loading alone is not enough: a live
 * value the YAML cannot carry (a non-boolean `enabled`, text the file cannot encode) would load as something else, and
 * `plan` would then create a second config beside the live one instead of adopting it.
 */

import type { AlertConfig } from '../../opsman/types.ts';
import { toDesiredAlertBody } from '../alert-body.ts';
import { canonicalJson } from '../canonical.ts';
import type { DesiredAlertConfig } from '../model.ts';
import { desiredForm, desiredText, liveForm, liveText } from '../normalise.ts';

/** The members of a normal form, in the order a reader scans a config. */
const MEMBERS = ['eventTypeName', 'enabled', 'matchers', 'metricThreshold', 'threshold', 'notifications'] as const;

/**
 * Why the loaded entry would not adopt `live`, or undefined when it would. The reason names the members that differ,
 * never their values (a notification may hold a secret's masked form).
 */
export function roundTripProblem(live: AlertConfig, loaded: DesiredAlertConfig): string | undefined {
  const body = toDesiredAlertBody(loaded);
  if (desiredText(body) === liveText(live)) return undefined;
  const want = liveForm(live).normal;
  const got = desiredForm(body).normal;
  const differ = MEMBERS.filter((m) => canonicalJson(want[m] ?? null) !== canonicalJson(got[m] ?? null));
  return `its YAML would not read back as the live config (${differ.join(', ') || 'its normal form'} would differ: Ops Manager holds a value the desired state cannot express exactly), so plan would create a copy instead of adopting it`;
}
