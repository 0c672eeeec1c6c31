/**
 * Normalisation: both the desired body and the live alert config become the same plain model, so that equality of
 * the canonical JSON means "in sync". Server-only fields are dropped, server defaults filled, lists sorted, numbers
 * made numeric, fields a notification type does not echo removed, and every secret replaced by the marker SECRET.
 * This file assembles whole alerts (objects and canonical texts); the parts are in normal-parts.ts.
 */
import type { AlertConfig, Matcher } from '../opsman/types.ts';
import type { DesiredAlertBody } from './alert-body.ts';
import { canonicalJson, digestOf, sha256Hex } from './canonical.ts';
import {
  listText,
  matcherOnlyText,
  type NormalAlert,
  type NormalNotification,
  normaliseMatcher,
  normaliseNotification,
  normaliseThreshold,
  notificationText,
  sortTexted,
  THRESHOLD_DEFAULTS,
  thresholdJson,
  valueJson,
} from './normal-parts.ts';

export { type NormalAlert, type NormalNotification, SECRET, THRESHOLD_DEFAULTS } from './normal-parts.ts';

/** A normalised alert and its canonical JSON (always equal to `canonicalJson(normal)`), made in one pass. */
export interface NormalForm {
  normal: NormalAlert;
  text: string;
}

/** The raw shape normalisation reads (a live config or a desired body). */
interface RawBody {
  eventTypeName: string;
  enabled?: boolean;
  matchers?: Matcher[];
  metricThreshold?: unknown;
  threshold?: unknown;
  notifications?: unknown[];
}

/** The alert's canonical text from its parts' texts: members in sorted order. */
function bodyText(
  enabled: boolean,
  eventTypeName: string,
  matchers: string,
  metricThreshold: Record<string, unknown> | undefined,
  notifications: string,
  threshold: Record<string, unknown> | undefined,
): string {
  // Members in sorted order: enabled, eventTypeName, matchers, metricThreshold, notifications, threshold.
  let text = `{"enabled":${valueJson(enabled)}`;
  if (eventTypeName !== undefined) text += `,"eventTypeName":${valueJson(eventTypeName)}`;
  text += `,"matchers":${matchers}`;
  if (metricThreshold !== undefined) text += `,"metricThreshold":${thresholdJson(metricThreshold)}`;
  text += `,"notifications":${notifications}`;
  if (threshold !== undefined) text += `,"threshold":${thresholdJson(threshold)}`;
  return `${text}}`;
}

function normaliseBody(raw: RawBody): NormalForm {
  const matchers = sortTexted((raw.matchers ?? []).map(normaliseMatcher));
  const notifications = sortTexted(
    (raw.notifications ?? []).map((n) => normaliseNotification(n as Record<string, unknown>)),
  );
  const out: NormalAlert = {
    eventTypeName: raw.eventTypeName,
    enabled: raw.enabled ?? false,
    matchers: matchers.items,
    notifications: notifications.items,
  };
  const metricThreshold = normaliseThreshold(raw.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold);
  if (metricThreshold !== undefined) out.metricThreshold = metricThreshold;
  const threshold = normaliseThreshold(raw.threshold, THRESHOLD_DEFAULTS.threshold);
  if (threshold !== undefined) out.threshold = threshold;
  return {
    normal: out,
    text: bodyText(out.enabled, out.eventTypeName, matchers.text, metricThreshold, notifications.text, threshold),
  };
}

/**
 * The canonical text of the normal form alone: equal to `normaliseBody(raw).text` (and throws where it throws), but
 * builds no normalised notifications, matchers or lists. An in-sync config never needs more than this.
 */
function normalText(raw: RawBody): string {
  const matchers = listText((raw.matchers ?? []).map(matcherOnlyText));
  const notifications = listText((raw.notifications ?? []).map((n) => notificationText(n as Record<string, unknown>)));
  return bodyText(
    raw.enabled ?? false,
    raw.eventTypeName,
    matchers,
    normaliseThreshold(raw.metricThreshold, THRESHOLD_DEFAULTS.metricThreshold),
    notifications,
    normaliseThreshold(raw.threshold, THRESHOLD_DEFAULTS.threshold),
  );
}

/** A live alert config's normal form with its canonical text. */
export function liveForm(config: AlertConfig): NormalForm {
  return normaliseBody(config as unknown as RawBody);
}

/** A desired body's canonical text alone (equal to `desiredForm(body).text`, cheaper). */
export function desiredText(body: DesiredAlertBody): string {
  return normalText(body as unknown as RawBody);
}

/** A live config's canonical text alone (equal to `liveForm(config).text`, cheaper). */
export function liveText(config: AlertConfig): string {
  return normalText(config as unknown as RawBody);
}

/** A desired body's normal form with its canonical text (secret references count as present secrets). */
export function desiredForm(body: DesiredAlertBody): NormalForm {
  return normaliseBody(body as unknown as RawBody);
}

/**
 * A desired body's notifications normalised one by one, in the order of its YAML list (desiredForm sorts them): what
 * diffAlert needs to say where one of several notifications of one identity is.
 */
export function desiredNotificationOrder(body: DesiredAlertBody): NormalNotification[] {
  return (body.notifications ?? []).map((n) => normaliseNotification(n as Record<string, unknown>).item);
}

/** Normalises a live alert config (as read from Ops Manager). */
export function normaliseLive(config: AlertConfig): NormalAlert {
  return liveForm(config).normal;
}

/** Normalises a desired body (secret references count as present secrets). */
export function normaliseDesired(body: DesiredAlertBody): NormalAlert {
  return desiredForm(body).normal;
}

/** Digest of a normalised alert: the `appliedDigest` kept in state and the unit of equality. */
export function normalDigest(alert: NormalAlert): string {
  return digestOf(alert);
}

/**
 * Digest of a canonical text (`desiredText`, `liveText`): the one hash that a desired body's `appliedDigest`, a pending
 * create's `desiredDigest` and a live config's `LiveView.digest` are made with, so equal texts give equal digests.
 */
export function textDigest(text: string): string {
  return sha256Hex(text);
}

/** True when two normalised alerts are equal. */
export function sameNormal(a: NormalAlert, b: NormalAlert): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A live config seen once: its normal form, canonical text and digest. */
export interface LiveView {
  normal: NormalAlert;
  text: string;
  digest: string;
}

/**
 * A live view whose parts are only computed when first asked for: an in-sync config needs its text only, an unowned
 * one nothing unless a desired config is looked for among them.
 */
class LazyLiveView implements LiveView {
  private form: NormalAlert | undefined;
  private canonical: string | undefined;
  private sha: string | undefined;

  constructor(private readonly config: AlertConfig) {}

  get text(): string {
    if (this.canonical === undefined) this.canonical = liveText(this.config);
    return this.canonical;
  }

  get digest(): string {
    if (this.sha === undefined) this.sha = textDigest(this.text);
    return this.sha;
  }

  get normal(): NormalAlert {
    if (this.form === undefined) this.form = liveForm(this.config).normal;
    return this.form;
  }
}

/**
 * The normalised view of a live config (planning makes it once per config and shares it). Each part is computed on
 * first use, from the same config (which planning never mutates); `liveText` throws where `liveForm` would.
 */
export function liveView(config: AlertConfig): LiveView {
  return new LazyLiveView(config);
}
