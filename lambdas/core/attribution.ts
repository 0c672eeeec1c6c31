/**
 * Drift attribution: for owned objects whose live value moved since our last apply, the project's audit events
 * since the last reconcile say who changed them and when. Best effort: a failure never fails the run.
 */
import type { OpsManagerEvent } from '../opsman/types.ts';
import { eventsWindow, UNBOUNDED_EVENTS_LIMIT } from './attribution-window.ts';
import { errorCode, errorHttpStatus, errorMessage } from './concurrency.ts';
import { usableEvent } from './live-shape.ts';
import type { Change, DriftAttribution, TargetRef } from './model.ts';
import type { OpsManagerApi, OwnedAlertConfig } from './ports.ts';
import { parseTimestamp } from './timestamp.ts';

export {
  CLOCK_SKEW_ALLOWANCE_MS,
  eventsSince,
  eventsWindow,
  UNBOUNDED_EVENTS_LIMIT,
} from './attribution-window.ts';

/** Event types that record a change to an alert config. */
export const ALERT_CONFIG_EVENT_TYPES = [
  'ALERT_CONFIG_CHANGED_AUDIT',
  'ALERT_CONFIG_DELETED_AUDIT',
  'ALERT_CONFIG_ENABLED_AUDIT',
  'ALERT_CONFIG_DISABLED_AUDIT',
  'ALERT_CONFIG_ADDED_AUDIT',
] as const;

/** Event types per singleton kind, matched by target rather than object id. */
export const SINGLETON_EVENT_TYPES: Readonly<Record<string, readonly string[]>> = {
  defaultServerType: ['DEFAULT_SERVER_TYPE_CHANGED_AUDIT'],
  auditLogRotation: ['AUTOMATION_CONFIG_PUBLISHED_AUDIT'],
};

/** At most this many events are attached to one change (newest first). */
export const MAX_ATTRIBUTIONS = 5;

/**
 * Turns an event into an attribution. The spec pairs `userId` with `username` and `apiKeyId` with `publicKey` (one
 * pair excludes the other); the name is preferred, and the id stands in when the event leaves the name out. A key
 * named by `apiKeyId` alone is marked `keyIdOnly`: the spec does not promise `publicKey` with it, and this tool knows
 * its own key by public key only, so such an event may be its own write and is never called someone else's.
 */
export function toAttribution(event: OpsManagerEvent): DriftAttribution {
  const user = event.username ?? event.userId;
  const key = event.publicKey ?? event.apiKeyId;
  const attribution: DriftAttribution = {
    eventTypeName: event.eventTypeName,
    created: event.created,
    actor: user ?? key ?? 'unknown',
    actorType: user !== undefined ? 'user' : key !== undefined ? 'apiKey' : 'unknown',
    eventId: event.id,
  };
  if (event.remoteAddress !== undefined) attribution.remoteAddress = event.remoteAddress;
  if (user === undefined && event.publicKey === undefined && event.apiKeyId !== undefined) attribution.keyIdOnly = true;
  return attribution;
}

/** When an event happened; `usableEvent` let only events whose `created` reads as a time through. */
function instant(event: OpsManagerEvent): number {
  return parseTimestamp(event.created) ?? Number.NaN;
}

/**
 * Newest first by instant (ISO 8601 allows fractions and offsets, so the text does not sort: "…44.500Z" < "…44Z"),
 * then by event id: Ops Manager stamps whole seconds, and events of one second must come out in the same order on
 * every run whatever order the server lists them in, so the same drift reads the same.
 */
function newestFirst(a: OpsManagerEvent, b: OpsManagerEvent): number {
  const byTime = instant(b) - instant(a);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const ALERT_CONFIG_EVENT_TYPE_SET: ReadonlySet<string> = new Set(ALERT_CONFIG_EVENT_TYPES);

/**
 * The events that record a change to an alert config, by its id, in the order given. The event type is checked here
 * as well as in the query: alert events (OUTSIDE_METRIC_THRESHOLD, say) carry `alertConfigId` too, and a server that
 * answers more than the `eventType` filter asked must not turn an alert that fired into the author of a config change.
 * Grouped once per target: a project with thousands of drifted configs and tens of thousands of events would
 * otherwise scan every event for every drifted config.
 */
function alertConfigEvents(events: readonly OpsManagerEvent[]): Map<string, OpsManagerEvent[]> {
  const byId = new Map<string, OpsManagerEvent[]>();
  for (const event of events) {
    const id = event.alertConfigId;
    if (id === undefined || !ALERT_CONFIG_EVENT_TYPE_SET.has(event.eventTypeName)) continue;
    const list = byId.get(id);
    if (list === undefined) byId.set(id, [event]);
    else list.push(event);
  }
  return byId;
}

/**
 * Whether `event` may be of `target`: not when its `groupId` names another project, or, on an organization, any
 * project (or its `orgId` another organization). Singletons are matched by event type alone, so an answer that mixed
 * in another scope's events (a project's server type change among an organization's events) would otherwise name that
 * scope's editor as this drift's author. An event that names no scope is kept.
 */
function ofTarget(event: OpsManagerEvent, target: TargetRef): boolean {
  if (target.type === 'project') return event.groupId === undefined || event.groupId === target.id;
  return event.groupId === undefined && (event.orgId === undefined || event.orgId === target.id);
}

/** The events that record a change to the object of `change`, in the order given. */
function eventsOf(
  change: Change,
  events: readonly OpsManagerEvent[],
  byConfig: ReadonlyMap<string, OpsManagerEvent[]>,
  formerIds: ReadonlyMap<string, string>,
): OpsManagerEvent[] {
  if (change.kind !== 'alertConfig') {
    const types = SINGLETON_EVENT_TYPES[change.kind] ?? [];
    return events.filter((e) => types.includes(e.eventTypeName));
  }
  // A vanished owned config has its former id here; when an equal config was adopted in its place, both ids' events
  // count (who deleted the old one, who made the new one).
  const ids = new Set([change.id, formerIds.get(change.key)].filter((id): id is string => id !== undefined));
  return [...ids].flatMap((id) => byConfig.get(id) ?? []);
}

/**
 * Whether `event` is a write of our own key: it carries our public key and names no user. The spec says an event names
 * either a user or an API key; one that names both (a server's odd answer) is read as the user's, as `toAttribution`
 * names it, so a person's edit is never hidden as our write nor shown as made with our key.
 */
function isOwn(event: OpsManagerEvent, own: string): boolean {
  return event.publicKey === own && event.username === undefined && event.userId === undefined;
}

/**
 * The others' events of one object (sorted newest first) that came after our own newest write to it. Our own writes
 * (the create that a human later edited, say) are history, not the drift's author, and so is an edit that one of our
 * writes overwrote: the drift standing now was made after it. Events in the same second as our write are kept, since
 * Ops Manager's whole-second stamps do not say which came first.
 */
function sinceOwnWrite(events: OpsManagerEvent[], own: string | undefined): OpsManagerEvent[] {
  if (own === undefined) return events;
  const ours = events.find((e) => isOwn(e, own));
  const floor = ours === undefined ? Number.NEGATIVE_INFINITY : Math.floor(instant(ours) / 1000) * 1000;
  return events.filter((e) => !isOwn(e, own) && instant(e) >= floor);
}

/**
 * How long after the state's last save an event of our own key must come to be counted as made outside our runs: Ops
 * Manager stamps events by its own clock, in whole seconds, and may run ahead of ours.
 */
export const OWN_KEY_MARGIN_MS = 5 * 60_000;

/**
 * When no one else's event explains a drift: the newest event of our own key on the object that came after the
 * state's last save (`savedAt`, plus the clock margin), as an attribution marked `viaOwnKey`. Every run that writes
 * saves the state after its writes (a saved plan applied hours later and a long run included), so a later write with
 * our key was not one of those: the key used by hand, by another installation, or by a run that wrote and then stopped
 * before it could save. Without `savedAt` (or our key) nothing can be told, and nothing is said. A later save (another
 * project's run) only makes this say less, never wrongly.
 */
function ownKeyOutsideRuns(
  events: readonly OpsManagerEvent[],
  own: string | undefined,
  savedAt: string | undefined,
): DriftAttribution[] {
  const floor = savedAt === undefined ? undefined : parseTimestamp(savedAt);
  if (own === undefined || floor === undefined || floor === null) return [];
  const newest = events.find((e) => isOwn(e, own) && instant(e) > floor + OWN_KEY_MARGIN_MS);
  return newest === undefined ? [] : [{ ...toAttribution(newest), viaOwnKey: true }];
}

/**
 * `drift.unattributed` for a failed events read: its code and HTTP status only. The message may quote the server's
 * answer (a proxy's page, say), which has no place in a log line or a plan.
 */
function readFailedReason(error: unknown): string {
  const parts: string[] = [];
  const code = errorCode(error);
  const status = errorHttpStatus(error);
  if (code !== undefined) parts.push(`code ${code}`);
  if (status !== undefined) parts.push(`HTTP status ${status}`);
  return `events read failed${parts.length === 0 ? '' : ` (${parts.join(', ')})`}`;
}

/**
 * `drift.unattributed` for a drifted change the events read named no author of: no event of its object (`found` 0),
 * or only the tool's own writes and edits they overwrote. Says when the history was cut (`cut`) or some events were
 * unusable (`skipped`), as either could have held the author.
 */
function noAuthorReason(
  change: Change,
  found: number,
  converging: boolean,
  minDate: string | undefined,
  cut: boolean,
  skipped: number,
): string {
  const types = change.kind === 'alertConfig' ? ALERT_CONFIG_EVENT_TYPES : SINGLETON_EVENT_TYPES[change.kind];
  if (types === undefined || types.length === 0) return 'no audit event type records a change of this kind';
  const window = minDate === undefined ? 'in the events read (no lower bound)' : `since ${minDate}`;
  let reason =
    found === 0
      ? `no event of this object ${window}`
      : // Another installation, a script or a person using this tool's API key writes as it does: the writes after the
        // state's last save (past the clock-skew margin) are named viaOwnKey, the others cannot be told from its own.
        `only this tool's own writes to it (and edits they overwrote) ${window}${converging ? '' : '; it does not converge'}; a write made with its API key by another installation, a script or a person is not told from its own unless made over ${OWN_KEY_MARGIN_MS / 60_000} minutes after this state was last saved`;
  if (cut) reason += `; only the newest ${UNBOUNDED_EVENTS_LIMIT.toLocaleString('en-US')} events were read`;
  if (skipped > 0) reason += `; ${skipped} unusable events ignored`;
  return reason;
}

/** What attribution may know besides the target's `lastReconciledAt`. */
export interface AttributionOptions {
  /** Ids of owned configs that vanished from Ops Manager, by key. */
  formerIds?: ReadonlyMap<string, string>;
  /** Our own public key: its events are our writes, not a drift's authors. */
  ignoreActor?: string | undefined;
  /** When the state was last saved (its `updatedAt`): our key's writes after it were not a saving run's. */
  stateSavedAt?: string | undefined;
  /** The target's owned records: their times bound the query when `lastReconciledAt` is missing. */
  records?: Readonly<Record<string, OwnedAlertConfig>>;
}

/**
 * Adds `drift.attribution` to the drifted changes of one target (project or organization), or `drift.unattributed`
 * (why none is named) to those it finds no author for. `since` is the target's
 * `lastReconciledAt`; without it the window comes from `options.records` (see {@link eventsWindow}). Returns a
 * warning when the events could not be read (the changes are left without attribution then), when some were
 * unusable, or when the read was cut at {@link UNBOUNDED_EVENTS_LIMIT} (with or without a lower bound).
 */
export async function attributeDrift(
  api: OpsManagerApi,
  changes: Change[],
  since: string | undefined,
  options: AttributionOptions = {},
): Promise<string | undefined> {
  const formerIds = options.formerIds ?? new Map<string, string>();
  const drifted = changes.filter((c) => c.drift?.detected === true);
  const first = drifted[0];
  if (first === undefined) return undefined;
  const target = first.target;
  const types = new Set<string>();
  for (const c of drifted) {
    const list = c.kind === 'alertConfig' ? ALERT_CONFIG_EVENT_TYPES : (SINGLETON_EVENT_TYPES[c.kind] ?? []);
    for (const t of list) types.add(t);
  }
  let events: OpsManagerEvent[];
  const window = eventsWindow(drifted, since, options.records);
  try {
    const query =
      window.minDate === undefined ? { eventType: [...types] } : { eventType: [...types], minDate: window.minDate };
    // Capped with a lower bound too: that bound is the last clean reconcile, which a target in observe mode or with a
    // standing blocked change keeps for months, so its window (and each run's read) would grow with time.
    const limit = { maxItems: UNBOUNDED_EVENTS_LIMIT };
    events =
      target.type === 'organization'
        ? await api.listOrgEvents(target.id, query, limit)
        : await api.listProjectEvents(target.id, query, limit);
  } catch (error) {
    const reason = readFailedReason(error);
    for (const change of drifted) if (change.drift !== undefined) change.drift.unattributed = reason;
    return `drift attribution for ${target.name} unavailable: ${errorMessage(error)}`;
  }
  const answered = events.length;
  const warnings: string[] = [];
  const cut = answered >= UNBOUNDED_EVENTS_LIMIT;
  if (cut) {
    const why = window.capped
      ? 'no lower bound for its events (no lastReconciledAt, and no creation or adoption time for every drifted object)'
      : `at least ${UNBOUNDED_EVENTS_LIMIT.toLocaleString('en-US')} events since ${window.minDate}`;
    warnings.push(
      `drift attribution for ${target.name}: ${why}, so only the newest ${UNBOUNDED_EVENTS_LIMIT.toLocaleString('en-US')} events were read: the history was cut, and an older author may be missing`,
    );
  }
  events = events.flatMap((e) => usableEvent(e) ?? []);
  const skipped = answered - events.length;
  // The bound is read on the answer too: a server (or a proxy dropping the query) that ignores minDate would otherwise
  // name an edit from before the last clean reconcile, put back or undone long ago, as the author of today's drift.
  const from = window.minDate === undefined ? null : parseTimestamp(window.minDate);
  events = events.filter((e) => ofTarget(e, target) && (from === null || instant(e) >= from));
  const byConfig = alertConfigEvents(events);
  for (const change of drifted) {
    const ofObject = eventsOf(change, events, byConfig, formerIds).sort(newestFirst);
    let matching = sinceOwnWrite(ofObject, options.ignoreActor).slice(0, MAX_ATTRIBUTIONS).map(toAttribution);
    // A config that does not converge differs after our own write, by Ops Manager's doing: never our key's "by hand".
    const converging = change.kind !== 'alertConfig' || options.records?.[change.key]?.notConverging === undefined;
    if (matching.length === 0 && converging) {
      matching = ownKeyOutsideRuns(ofObject, options.ignoreActor, options.stateSavedAt);
    }
    if (change.drift === undefined) continue;
    if (matching.length > 0) change.drift.attribution = matching;
    else change.drift.unattributed = noAuthorReason(change, ofObject.length, converging, window.minDate, cut, skipped);
  }
  if (skipped > 0) {
    warnings.push(
      `drift attribution for ${target.name}: ${skipped} of ${answered} events were ignored (no id or event type as text, or a created that is not a time)`,
    );
  }
  return warnings.length === 0 ? undefined : warnings.join('; ');
}
