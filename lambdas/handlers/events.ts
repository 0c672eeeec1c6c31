/**
 * Validation of what invokes the reconcile function: an EventBridge Scheduler event, an S3 ObjectCreated notification
 * (only `.yaml`/`.yml` keys and the snapshot manifest under the desired-state prefix trigger a run), or a manual invocation
 * `{"mode": "observe|plan|apply", "projects": ["…"], "dryRun": true, "ignoreWindows": true}`. Anything else is rejected
 * with a precise message.
 *
 * `ignoreWindows` is the manual-sync override of change windows (Argo CD's `manualSync: true`; the CLI's `apply
 * --ignore-windows`), for an emergency fix during a freeze: a manual event only, never a scheduled or S3 one (those
 * obey windows). As the CLI refuses an option its command does not use (cli/option-use.ts), `"ignoreWindows": true` is
 * refused wherever it could not lift anything: with a `mode` other than apply, with `dryRun`, or under a deployment
 * whose mode (OPSMAN_MODE) is not apply, since the run's mode is the stricter of the event's and the deployment's.
 */
import { isRecord } from '../../shared/is-record.ts';
import { closest } from '../../shared/suggest.ts';
import { SNAPSHOT_FILE } from '../core/desired/snapshot-manifest.ts';
import type { Mode } from '../core/model.ts';
import { InvalidEventError } from './errors.ts';
import { describeValue, fieldList } from './event-text.ts';
import { isManualOptionName, isScheduledEvent, scheduledEventProblem } from './scheduled-event.ts';

/** A validated trigger. */
export type ReconcileTrigger =
  | { kind: 'schedule'; scheduleArn?: string; time?: string }
  | { kind: 's3'; bucket: string; keys: string[] }
  | { kind: 'manual'; mode?: Mode; projects?: string[]; dryRun: boolean; ignoreWindows?: true }
  | { kind: 'ignored'; reason: string };

/** How a refusal of the manual event's project selection names it (the CLI says `--project`). */
export const PROJECTS_FIELD = 'the event\'s "projects"';

/**
 * How the run's warnings and log lines name the manual event's override of change windows (the CLI's is
 * `--ignore-windows`): RunRequest.ignoreWindowsBy.
 */
export const IGNORE_WINDOWS_FIELD = 'manual event "ignoreWindows": true';

/** Where a scheduled reconcile gets what a manual invocation may choose, for the refusal of such an option. */
const SCHEDULED_RUN_TAKES =
  'a scheduled run takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows';

/** Where an S3-triggered reconcile gets what a manual invocation may choose, for the refusal of such an option. */
const S3_RUN_TAKES =
  'a run an upload starts takes its mode from the deployment (OPSMAN_MODE), covers every project and obeys change windows';

const MODES = new Set(['observe', 'plan', 'apply']);
const MANUAL_KEYS = new Set(['mode', 'projects', 'dryRun', 'ignoreWindows']);
// Either case, as the CLI's --project takes it: Ops Manager writes ids in lower case, and the run compares them so.
const PROJECT_ID = /^[0-9a-f]{24}$/i;
const YAML_KEY = /\.ya?ml$/i;

/**
 * Parses the reconcile function's event; throws InvalidEventError naming what is wrong. `deploymentMode` (OPSMAN_MODE,
 * unknown when the function is not configured) decides whether a manual `ignoreWindows` could have any effect.
 */
export function parseReconcileEvent(
  event: unknown,
  options: { desiredPrefix: string; desiredBucket?: string; deploymentMode?: Mode },
): ReconcileTrigger {
  if (!isRecord(event)) throw new InvalidEventError(`expected a JSON object, got ${describeValue(event)}`);
  if ('Records' in event) {
    // An option beside the Records would otherwise be ignored without a word (an "ignoreWindows" would not lift any
    // window): S3 sends only Records, so such an event was written by hand.
    const carried = Object.keys(event).filter(isManualOptionName);
    if (carried.length > 0) {
      const one = carried.length === 1;
      throw new InvalidEventError(
        `an S3 notification cannot carry ${fieldList(carried)} (${one ? 'an option' : 'options'} of a manual invocation): ${S3_RUN_TAKES}; invoke the function with {"mode", "projects", "dryRun", "ignoreWindows"} alone instead`,
      );
    }
    return parseS3(event.Records, options.desiredPrefix, options.desiredBucket);
  }
  if (isScheduledEvent(event)) {
    const problem = scheduledEventProblem(event, SCHEDULED_RUN_TAKES);
    if (problem) throw new InvalidEventError(problem);
    const trigger: ReconcileTrigger = { kind: 'schedule' };
    const resources = event.resources;
    if (Array.isArray(resources) && typeof resources[0] === 'string') trigger.scheduleArn = resources[0];
    if (typeof event.time === 'string') trigger.time = event.time;
    return trigger;
  }
  return parseManual(event, options.deploymentMode);
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
      // Names where a key would have to be: a notification from another bucket or prefix is told at a glance.
      reason: `no ObjectCreated .yaml/.yml or ${SNAPSHOT_FILE} key under ${desiredBucket === undefined ? `the desired-state prefix ${desiredPrefix}` : `s3://${desiredBucket}/${desiredPrefix}`}`,
    };
  return { kind: 's3', bucket, keys };
}

/**
 * ` (did you mean "mode" for "mdoe"?)` for unknown fields a small edit away from a manual option: a typo in a hand-made
 * invocation fires EventRejected and pages someone, who should see the fix in the message. Only short names are
 * compared (an event can carry thousands of names, each up to 6 MB), and at most five.
 */
function manualKeyHints(unknown: readonly string[]): string {
  const hints: string[] = [];
  for (const name of [...unknown].sort()) {
    if (hints.length === 5) break;
    if (name.length > 40) continue;
    const near = closest(name, [...MANUAL_KEYS]);
    if (near !== undefined) hints.push(`"${near}" for "${name}"`);
  }
  return hints.length === 0 ? '' : ` (did you mean ${hints.join(', ')}?)`;
}

function parseManual(event: Record<string, unknown>, deploymentMode: Mode | undefined): ReconcileTrigger {
  const unknown = Object.keys(event).filter((k) => !MANUAL_KEYS.has(k));
  if (unknown.length > 0) {
    throw new InvalidEventError(
      `unknown event: unexpected field(s) ${fieldList(unknown)}${manualKeyHints(unknown)}; expected a Scheduler event, an S3 notification or {"mode", "projects", "dryRun", "ignoreWindows"}`,
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
    trigger.projects = [...new Set((p as string[]).map((id) => id.toLowerCase()))];
  }
  if (event.dryRun !== undefined) {
    if (typeof event.dryRun !== 'boolean')
      throw new InvalidEventError(`dryRun must be true or false; got ${describeValue(event.dryRun)}`);
    trigger.dryRun = event.dryRun;
  }
  if (event.ignoreWindows !== undefined) {
    if (typeof event.ignoreWindows !== 'boolean')
      throw new InvalidEventError(`ignoreWindows must be true or false; got ${describeValue(event.ignoreWindows)}`);
    if (event.ignoreWindows) {
      const problem = ignoreWindowsProblem(trigger, deploymentMode);
      if (problem) throw new InvalidEventError(`ignoreWindows cannot be true ${problem}`);
      trigger.ignoreWindows = true;
    }
  }
  return trigger;
}

/**
 * Why `"ignoreWindows": true` would lift nothing in this manual run, or undefined: only an apply writes, and only an
 * apply is held by change windows. The run's command is the stricter of the event's mode and the deployment's, and a
 * dry run never applies (reconcile.ts).
 */
function ignoreWindowsProblem(
  trigger: { mode?: Mode; dryRun: boolean },
  deploymentMode: Mode | undefined,
): string | undefined {
  const why = 'only an apply writes, and only an apply is held by change windows';
  if (trigger.mode !== undefined && trigger.mode !== 'apply')
    return `with mode ${describeValue(trigger.mode)}: ${why} (its plan shows which targets a window holds); use "mode": "apply" or leave ignoreWindows out`;
  if (trigger.dryRun)
    return `with "dryRun": true: a dry run writes nothing (its plan shows which targets a window holds); leave one of them out`;
  if (deploymentMode !== undefined && deploymentMode !== 'apply')
    return `here: this deployment's mode (OPSMAN_MODE) is ${deploymentMode}, which caps every run of this function, so no run writes and ${why}`;
  return undefined;
}
