/**
 * What a scheduled invocation may carry. The stack's schedules send an EventBridge-style payload (`source`,
 * `detail-type`, `resources`, `time`: infra/triggers.ts), and an EventBridge rule sends the whole envelope; a scheduled
 * run takes everything else from the deployment. A manual-invocation option in a schedule's payload (`"mode":
 * "observe"`, `"projects"`) would otherwise be ignored without a word, and the schedule would apply everything.
 */
import { isRecord } from '../../shared/is-record.ts';
import { describeValue, fieldList } from './event-text.ts';

/** The fields of an EventBridge event envelope, each accepted (and all but `resources` and `time` unread). */
export const ENVELOPE_FIELDS: ReadonlySet<string> = new Set([
  'version',
  'id',
  'detail-type',
  'source',
  'account',
  'time',
  'region',
  'resources',
  'detail',
]);

/**
 * Names of a manual invocation's options, in any case and spelling a person might try (`dryRun`, `dry-run`,
 * `ignoreWindows`, `ignore-windows`).
 */
const OPTION_NAME = /^(modes?|projects?|dry-?run|commands?|ignore-?windows?)$/i;

/** True for the name of a manual invocation's option, as a person might spell it (an S3 event carries none either). */
export function isManualOptionName(name: string): boolean {
  return OPTION_NAME.test(name);
}

/** True for a Scheduler payload or an EventBridge scheduled rule's event. */
export function isScheduledEvent(event: Record<string, unknown>): boolean {
  return event.source === 'aws.scheduler' || event['detail-type'] === 'Scheduled Event';
}

/**
 * Why a scheduled event is refused, or undefined: an option of a manual invocation at top level or in `detail`,
 * a top-level field outside the envelope, or a `detail` that is not an object. `takes` says where a scheduled run of
 * this function gets its settings, for the message.
 */
export function scheduledEventProblem(event: Record<string, unknown>, takes: string): string | undefined {
  const detail = event.detail;
  if (detail !== undefined && !isRecord(detail)) {
    return `detail of a scheduled event must be an object; got ${describeValue(detail)}`;
  }
  const options = [
    ...Object.keys(event).filter(isManualOptionName),
    ...Object.keys(detail ?? {})
      .filter(isManualOptionName)
      .map((name) => `detail.${name}`),
  ];
  if (options.length > 0) {
    const one = options.length === 1;
    return `a scheduled event cannot carry ${fieldList(options)} (${one ? 'an option' : 'options'} of a manual invocation): ${takes}; remove ${one ? 'it' : 'them'} from the schedule's payload`;
  }
  const unknown = Object.keys(event).filter((name) => !ENVELOPE_FIELDS.has(name));
  if (unknown.length > 0) {
    return `a scheduled event carries only the EventBridge envelope (${[...ENVELOPE_FIELDS].join(', ')}); unexpected field(s) ${fieldList(unknown)}`;
  }
  return undefined;
}
