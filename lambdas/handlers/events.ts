/**
 * Validation of what invokes the reconcile function: an EventBridge Scheduler event, an S3 ObjectCreated notification
 * (only `.yaml`/`.yml` keys and the snapshot manifest under the desired-state prefix trigger a run), or a manual invocation
 * `{"mode": "observe|plan|apply", "projects": ["…"], "dryRun": true}`. Anything else is rejected with a precise message.
 */
import { isRecord } from '../../shared/is-record.ts';
import { SNAPSHOT_FILE } from '../core/desired/snapshot-manifest.ts';
import type { Mode } from '../core/model.ts';
import { InvalidEventError } from './errors.ts';
import { describeValue, fieldList } from './event-text.ts';
import { isScheduledEvent, scheduledEventProblem } from './scheduled-event.ts';

/** A validated trigger. */
export type ReconcileTrigger =
  | { kind: 'schedule'; scheduleArn?: string; time?: string }
  | { kind: 's3'; bucket: string; keys: string[] }
  | { kind: 'manual'; mode?: Mode; projects?: string[]; dryRun: boolean }
  | { kind: 'ignored'; reason: string };

/** How a refusal of the manual event's project selection names it (the CLI says `--project`). */
export const PROJECTS_FIELD = 'the event\'s "projects"';

/** Where a scheduled reconcile gets what a manual invocation may choose, for the refusal of such an option. */
const SCHEDULED_RUN_TAKES = 'a scheduled run takes its mode from the deployment (OPSMAN_MODE) and covers every project';

const MODES = new Set(['observe', 'plan', 'apply']);
const MANUAL_KEYS = new Set(['mode', 'projects', 'dryRun']);
const PROJECT_ID = /^[0-9a-f]{24}$/;
const YAML_KEY = /\.ya?ml$/i;

/** Parses the reconcile function's event; throws InvalidEventError naming what is wrong. */
export function parseReconcileEvent(
  event: unknown,
  options: { desiredPrefix: string; desiredBucket?: string },
): ReconcileTrigger {
  if (!isRecord(event)) throw new InvalidEventError(`expected a JSON object, got ${describeValue(event)}`);
  if ('Records' in event) return parseS3(event.Records, options.desiredPrefix, options.desiredBucket);
  if (isScheduledEvent(event)) {
    const problem = scheduledEventProblem(event, SCHEDULED_RUN_TAKES);
    if (problem) throw new InvalidEventError(problem);
    const trigger: ReconcileTrigger = { kind: 'schedule' };
    const resources = event.resources;
    if (Array.isArray(resources) && typeof resources[0] === 'string') trigger.scheduleArn = resources[0];
    if (typeof event.time === 'string') trigger.time = event.time;
    return trigger;
  }
  return parseManual(event);
}

function parseS3(records: unknown, desiredPrefix: string, desiredBucket: string | undefined): ReconcileTrigger {
  if (!Array.isArray(records) || records.length === 0) throw new InvalidEventError('Records must be a non-empty array');
  let bucket = '';
  const keys: string[] = [];
  for (const [i, record] of records.entries()) {
    if (!isRecord(record) || record.eventSource !== 'aws:s3') {
      throw new InvalidEventError(`Records[${i}] is not an S3 notification (eventSource must be "aws:s3")`);
    }
    const name = record.eventName;
    const s3 = record.s3;
    const b = isRecord(s3) && isRecord(s3.bucket) ? s3.bucket.name : undefined;
    const k = isRecord(s3) && isRecord(s3.object) ? s3.object.key : undefined;
    if (typeof name !== 'string' || typeof b !== 'string' || typeof k !== 'string') {
      throw new InvalidEventError(`Records[${i}] lacks eventName, s3.bucket.name or s3.object.key`);
    }
    if (!name.startsWith('ObjectCreated:')) continue;
    if (desiredBucket !== undefined && b !== desiredBucket) continue;
    // S3 notifications URL-encode keys, with '+' for spaces.
    let key: string;
    try {
      key = decodeURIComponent(k.replace(/\+/g, ' '));
    } catch {
      throw new InvalidEventError(
        `Records[${i}].s3.object.key is not URL-encoded UTF-8 (as S3 notifications send keys); got ${describeValue(k)}`,
      );
    }
    if (!key.startsWith(desiredPrefix)) continue;
    const relative = key.slice(desiredPrefix.length);
    // The snapshot manifest lands after the files of an upload: its notification starts the run that sees the upload
    // whole, when the runs the files started stopped on a torn state (DESIRED_STATE_IN_TRANSIT).
    if (!YAML_KEY.test(key) && relative !== SNAPSHOT_FILE) continue;
    bucket = b;
    keys.push(key);
  }
  if (keys.length === 0)
    return {
      kind: 'ignored',
      reason: `no ObjectCreated .yaml/.yml or ${SNAPSHOT_FILE} key under the desired-state prefix`,
    };
  return { kind: 's3', bucket, keys };
}

function parseManual(event: Record<string, unknown>): ReconcileTrigger {
  const unknown = Object.keys(event).filter((k) => !MANUAL_KEYS.has(k));
  if (unknown.length > 0) {
    throw new InvalidEventError(
      `unknown event: unexpected field(s) ${fieldList(unknown)}; expected a Scheduler event, an S3 notification or {"mode", "projects", "dryRun"}`,
    );
  }
  const trigger: ReconcileTrigger = { kind: 'manual', dryRun: false };
  if (event.mode !== undefined) {
    if (typeof event.mode !== 'string' || !MODES.has(event.mode)) {
      throw new InvalidEventError(`mode must be one of observe, plan, apply; got ${describeValue(event.mode)}`);
    }
    trigger.mode = event.mode as Mode;
  }
  if (event.projects !== undefined) {
    const p = event.projects;
    if (!Array.isArray(p) || p.length === 0)
      throw new InvalidEventError('projects must be a non-empty array of project ids');
    const bad = p.findIndex((id) => typeof id !== 'string' || !PROJECT_ID.test(id));
    if (bad >= 0)
      throw new InvalidEventError(`projects[${bad}] must be a 24-hex-digit project id; got ${describeValue(p[bad])}`);
    trigger.projects = [...new Set(p as string[])];
  }
  if (event.dryRun !== undefined) {
    if (typeof event.dryRun !== 'boolean')
      throw new InvalidEventError(`dryRun must be true or false; got ${describeValue(event.dryRun)}`);
    trigger.dryRun = event.dryRun;
  }
  return trigger;
}
