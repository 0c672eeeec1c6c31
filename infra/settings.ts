/**
 * The stack's settings, read from CDK context (`cdk.json` or `-c key=value`) and validated with precise messages.
 * Every key is documented in docs/aws.md.
 */
import type { Node } from 'constructs';
import { knownTimeZone } from '../lambdas/core/zoned-time.ts';
import { checkPublicApiBaseUrl, SECRET_KEY_ADVICE } from '../lambdas/opsman/base-url.ts';
import { closest } from '../shared/suggest.ts';

/** The stack name when the `stackName` context key is absent. */
export const DEFAULT_STACK_NAME = 'OpsmanGitops';

/** Optional VPC placement for an Ops Manager on a private network. */
export interface VpcSettings {
  vpcId: string;
  subnetIds: string[];
  securityGroupIds: string[];
  /** Route tables of the subnets (same order): needed for the S3 gateway endpoint; without them none is created. */
  routeTableIds: string[];
  /** Create the S3 gateway and Secrets Manager interface endpoints (default true). */
  createEndpoints: boolean;
}

/** Everything the stack takes from context. */
export interface StackSettings {
  opsManagerBaseUrl: string;
  reconcileSchedule: string;
  archiveSchedule: string;
  timeZone: string;
  mode: 'observe' | 'plan' | 'apply';
  alarmEmail?: string;
  vpc?: VpcSettings;
  /** Path (relative to the repository) of a PEM bundle of the private CA that signed Ops Manager's certificate. */
  caBundle?: string;
  /** Hours without a successful run before the staleness alarm fires (default 6). */
  noSuccessHours: number;
  /** Prefix of the Secrets Manager names the desired state's secretRefs may use (default `opsman/`, as the example desired state uses). */
  secretNamePrefix: string;
  /** Folder uploaded to the desired-state prefix (default `desired-state`). */
  desiredStateDir: string;
  /** Days the functions' logs are kept (default 90). */
  logRetentionDays: number;
  /** Memory of each function in MB (Lambda's CPU share grows with it) and its timeout in minutes. */
  sizing: { reconcile: FunctionSizing; archive: FunctionSizing };
}

/** Memory and timeout of one function. */
export interface FunctionSizing {
  memoryMb: number;
  timeoutMinutes: number;
}

/**
 * Bounds of the sizing keys. Lambda takes 128-10,240 MB, but Node with a bundle already uses about 90 MB: below 256 a
 * run fails with an out-of-memory error that no log line explains. Lambda's timeout ends at 15 minutes. A run keeps
 * the last 60 s before its timeout (a quarter of the time left at most: lambdas/handlers/run-once.ts) to end its Ops
 * Manager requests, save its state and release its lease, the last 40 s of it for S3 alone (an S3 request whose three
 * attempts all time out takes about that long): below 4 minutes that quarter would be shorter, and a hung S3 request
 * would have Lambda kill the run before its state is saved.
 */
export const SIZING_RANGE = { memoryMb: { min: 256, max: 10_240 }, timeoutMinutes: { min: 4, max: 15 } } as const;

/** Why a timeout below SIZING_RANGE.timeoutMinutes.min is refused (appended to the key's message). */
export const SHORT_TIMEOUT_REASON =
  'a run keeps its last 60 s (a quarter of the timeout at most) to end its Ops Manager requests, save its state and release its lease, 40 s of it for S3 (an S3 request timing out three times takes about that long): below 4 minutes it would not';

/** Defaults of the optional keys. */
export const SETTINGS_DEFAULTS = {
  opsManagerBaseUrl: 'https://opsmanager.example.internal:8443/api/public/v1.0',
  reconcileSchedule: 'rate(15 minutes)',
  archiveSchedule: 'cron(30 2 * * ? *)',
  timeZone: 'Etc/UTC',
  mode: 'plan' as const,
  noSuccessHours: 6,
  secretNamePrefix: 'opsman/',
  desiredStateDir: 'desired-state',
  logRetentionDays: 90,
  /**
   * From `npm run bench` (docs/benchmarks.md): at 1,000 projects x 20 alert configs the reconciling process peaks at
   * about 200 MB RSS and the first apply is CPU-bound, so reconcile gets 1,024 MB (about 0.6 vCPU; a full vCPU at
   * 1,769 MB); the archive peaks at about 150 MB.
   */
  sizing: {
    reconcile: { memoryMb: 1024, timeoutMinutes: 10 },
    archive: { memoryMb: 512, timeoutMinutes: 5 },
  },
};

/** Every context key the stack reads (the README's and docs/aws.md's context-keys tables). */
export const CONTEXT_KEYS = [
  'stackName',
  'opsManagerBaseUrl',
  'reconcileSchedule',
  'archiveSchedule',
  'timeZone',
  'mode',
  'alarmEmail',
  'vpcId',
  'subnetIds',
  'securityGroupIds',
  'routeTableIds',
  'createVpcEndpoints',
  'caBundle',
  'noSuccessHours',
  'secretNamePrefix',
  'desiredStateDir',
  'logRetentionDays',
  'reconcileMemoryMb',
  'archiveMemoryMb',
  'reconcileTimeoutMinutes',
  'archiveTimeoutMinutes',
] as const;

/**
 * Context keys that look like a misspelling of one the stack reads (`-c alarmEmal=...`): read by nothing, such a key
 * would leave its setting at the default without a word (no alarm email, the default schedule). Keys with a `:` (CDK's
 * feature flags, `aws:cdk:...`) and keys close to none of ours (a team's own context) are left alone.
 */
function misspelledKeys(node: Node): string[] {
  const known: readonly string[] = CONTEXT_KEYS;
  const all: unknown = node.getAllContext();
  const keys = all !== null && typeof all === 'object' ? Object.keys(all) : [];
  const problems: string[] = [];
  for (const key of keys.sort()) {
    if (key.includes(':') || known.includes(key)) continue;
    const near = closest(key, known) ?? known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (near !== undefined) problems.push(`unknown context key ${JSON.stringify(key)}; did you mean "${near}"?`);
  }
  return problems;
}

/** Thrown when a context value is malformed; lists every problem. */
export class SettingsError extends Error {
  override name = 'SettingsError';
  readonly code = 'CONTEXT_INVALID';
  constructor(readonly problems: string[]) {
    super(`invalid CDK context: ${problems.join('; ')}`);
  }
}

/** `rate(N unit)` with the unit singular or plural (which of the two AWS wants is scheduleDetail's concern). */
const RATE = /^rate\((\d+) (minute|hour|day)(s?)\)$/;
const SCHEDULE = /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\([^()]+\)|at\([0-9T:-]+\))$/;
/** The retention periods CloudWatch Logs accepts (RetentionInDays): any other fails the deployment, not synth. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * What EventBridge Scheduler would refuse at deployment in an expression of the accepted shape, or undefined: a rate
 * of zero, a unit whose number disagrees with the value (`rate(1 minutes)`, `rate(5 hour)`: AWS's rate grammar wants
 * the singular for 1 and the plural above), a cron without its six fields (a Unix cron has five) or without exactly one
 * '?' in day-of-month and day-of-week, an `at` that is not
 * `yyyy-mm-ddThh:mm:ss` or names a day or time that does not exist.
 */
function scheduleDetail(expression: string): string | undefined {
  const rate = RATE.exec(expression);
  if (rate) {
    const value = Number(rate[1]);
    if (value < 1) return 'a rate must be at least 1';
    const plural = rate[3] === 's';
    if (value === 1 && plural) return `with a value of 1 the unit is singular: rate(1 ${rate[2]})`;
    if (value > 1 && !plural) return `with a value above 1 the unit is plural: rate(${value} ${rate[2]}s)`;
  }
  const cron = /^cron\(([^()]+)\)$/.exec(expression);
  const fields = cron?.[1]?.trim().split(/\s+/).length;
  if (fields !== undefined && fields !== 6) {
    return `a cron expression has six fields (minutes hours day-of-month month day-of-week year), found ${fields}`;
  }
  // AWS's cron takes a day-of-month or a day-of-week, never both (nor neither): the other one is '?'. A Unix habit
  // (`cron(30 2 * * * *)`) passes every other check here and fails the deployment with "ScheduleExpression is not valid".
  if (fields === 6) {
    const [, , dayOfMonth, , dayOfWeek] = cron?.[1]?.trim().split(/\s+/) ?? [];
    if ((dayOfMonth === '?') === (dayOfWeek === '?')) {
      return "a cron expression sets day-of-month or day-of-week and puts '?' in the other (cron(30 2 * * ? *): every day)";
    }
  }
  const at = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  if (expression.startsWith('at(') && at === null) return 'an at expression is at(yyyy-mm-ddThh:mm:ss)';
  if (at?.[1] !== undefined && !existingDateTime(at[1])) {
    return 'an at expression names a day and time that exist (no 30 February, no hour 24)';
  }
  return undefined;
}

/** The period of a `rate(...)` expression in hours (undefined for cron and at: their gaps are not one number). */
function ratePeriodHours(expression: string): number | undefined {
  const rate = RATE.exec(expression);
  if (!rate) return undefined;
  const perUnit = { minute: 1 / 60, hour: 1, day: 24 } as const;
  return Number(rate[1]) * perUnit[rate[2] as keyof typeof perUnit];
}

/** True when `yyyy-mm-ddThh:mm:ss` names a real day and time: Date.parse rolls 30 February over into March. */
function existingDateTime(text: string): boolean {
  const ms = Date.parse(`${text}Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === text;
}

/** Reads the settings from a node's context. */
export function readSettings(node: Node): StackSettings {
  const problems: string[] = misspelledKeys(node);
  const str = (key: string, fallback?: string): string | undefined => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return fallback;
    if (typeof value !== 'string') {
      problems.push(`${key} must be a string`);
      return fallback;
    }
    return value.trim();
  };
  const list = (key: string): string[] => {
    const value: unknown = node.tryGetContext(key);
    if (value === undefined || value === null || value === '') return [];
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    if (typeof value === 'string')
      return value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    problems.push(`${key} must be a list of ids or a comma-separated string`);
    return [];
  };
  const num = (key: string, fallback: number, min: number, max: number): number => {
    const raw: unknown = node.tryGetContext(key);
    if (raw === undefined || raw === null || raw === '') return fallback;
    const value = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      const short = key.endsWith('TimeoutMinutes') && typeof value === 'number' && value > 0 && value < min;
      problems.push(`${key} must be a whole number from ${min} to ${max}${short ? `: ${SHORT_TIMEOUT_REASON}` : ''}`);
      return fallback;
    }
    return value;
  };

  const d = SETTINGS_DEFAULTS;
  const sizingOf = (fn: 'reconcile' | 'archive'): FunctionSizing => {
    const { memoryMb, timeoutMinutes } = SIZING_RANGE;
    return {
      memoryMb: num(`${fn}MemoryMb`, d.sizing[fn].memoryMb, memoryMb.min, memoryMb.max),
      timeoutMinutes: num(`${fn}TimeoutMinutes`, d.sizing[fn].timeoutMinutes, timeoutMinutes.min, timeoutMinutes.max),
    };
  };
  const settings: StackSettings = {
    opsManagerBaseUrl: str('opsManagerBaseUrl', d.opsManagerBaseUrl) ?? d.opsManagerBaseUrl,
    reconcileSchedule: str('reconcileSchedule', d.reconcileSchedule) ?? d.reconcileSchedule,
    archiveSchedule: str('archiveSchedule', d.archiveSchedule) ?? d.archiveSchedule,
    timeZone: str('timeZone', d.timeZone) ?? d.timeZone,
    mode: d.mode,
    noSuccessHours: num('noSuccessHours', d.noSuccessHours, 1, 24),
    secretNamePrefix: str('secretNamePrefix', d.secretNamePrefix) ?? d.secretNamePrefix,
    desiredStateDir: str('desiredStateDir', d.desiredStateDir) ?? d.desiredStateDir,
    logRetentionDays: num('logRetentionDays', d.logRetentionDays, 1, 3653),
    sizing: {
      reconcile: sizingOf('reconcile'),
      archive: sizingOf('archive'),
    },
  };
  // The rule the functions apply at start-up (and the CLI to --base-url), so a URL never passes synth to fail there.
  const baseUrl = checkPublicApiBaseUrl('opsManagerBaseUrl', settings.opsManagerBaseUrl, SECRET_KEY_ADVICE);
  if (!baseUrl.ok) {
    problems.push(`opsManagerBaseUrl must be an http(s) URL ending in /api/public/v1.0: ${baseUrl.problem}`);
  }
  for (const key of ['reconcileSchedule', 'archiveSchedule'] as const) {
    const detail = SCHEDULE.test(settings[key]) ? scheduleDetail(settings[key]) : '';
    if (detail !== undefined) {
      const why = detail === '' ? '' : `; ${detail}, got ${JSON.stringify(settings[key])}`;
      problems.push(`${key} must be rate(N minutes|hours|days), cron(...) or at(...)${why}`);
    }
  }
  const periodHours = ratePeriodHours(settings.reconcileSchedule);
  if (periodHours !== undefined && periodHours > settings.noSuccessHours) {
    problems.push(
      `noSuccessHours must be at least the reconcile schedule's period: ${settings.reconcileSchedule} runs every ${periodHours} hours, so with noSuccessHours ${settings.noSuccessHours} the NoSuccessfulRun alarm would fire between every two runs`,
    );
  }
  if (!knownTimeZone(settings.timeZone)) {
    problems.push(
      `timeZone must be an IANA time zone such as Europe/Paris or Etc/UTC; got ${JSON.stringify(settings.timeZone)}`,
    );
  }
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(settings.logRetentionDays)) {
    problems.push(
      `logRetentionDays must be one of CloudWatch Logs' retention periods: ${LOG_RETENTION_DAYS.join(', ')}`,
    );
    settings.logRetentionDays = d.logRetentionDays;
  }
  const mode = str('mode');
  if (mode !== undefined) {
    if (mode === 'observe' || mode === 'plan' || mode === 'apply') settings.mode = mode;
    else problems.push(`mode must be observe, plan or apply; got ${JSON.stringify(mode)}`);
  }
  const email = str('alarmEmail');
  if (email !== undefined) {
    if (EMAIL.test(email)) settings.alarmEmail = email;
    else problems.push('alarmEmail must be an email address');
  }
  const caBundle = str('caBundle');
  if (caBundle !== undefined) settings.caBundle = caBundle;
  if (!/^[A-Za-z0-9/_+=.@-]+\/$/.test(settings.secretNamePrefix)) {
    problems.push('secretNamePrefix must be a Secrets Manager name prefix ending in /');
  }

  // `-c createVpcEndpoints=flase` must not turn the endpoints off without a word.
  const endpoints: unknown = node.tryGetContext('createVpcEndpoints');
  const createEndpoints = endpoints === undefined || endpoints === true || endpoints === 'true';
  if (!createEndpoints && endpoints !== false && endpoints !== 'false') {
    problems.push(`createVpcEndpoints must be true or false; got ${JSON.stringify(endpoints)}`);
  }
  const vpcId = str('vpcId');
  const subnetIds = list('subnetIds');
  const securityGroupIds = list('securityGroupIds');
  const routeTableIds = list('routeTableIds');
  // Route tables alone place nothing in a VPC: refused with the missing keys rather than ignored without a word.
  if (vpcId !== undefined || subnetIds.length > 0 || securityGroupIds.length > 0 || routeTableIds.length > 0) {
    if (!vpcId || !/^vpc-[0-9a-f]{8,17}$/.test(vpcId)) problems.push('vpcId must be a VPC id (vpc-...)');
    if (subnetIds.length === 0 || !subnetIds.every((s) => /^subnet-[0-9a-f]{8,17}$/.test(s))) {
      problems.push('subnetIds must list subnet ids (subnet-...) when vpcId is set');
    }
    if (securityGroupIds.length === 0 || !securityGroupIds.every((s) => /^sg-[0-9a-f]{8,17}$/.test(s))) {
      problems.push('securityGroupIds must list security group ids (sg-...) when vpcId is set');
    }
    // A malformed id passes synth and fails the deployment (the S3 gateway endpoint's RouteTableIds).
    if (!routeTableIds.every((r) => /^rtb-[0-9a-f]{8,17}$/.test(r))) {
      problems.push('routeTableIds must list route table ids (rtb-...)');
    }
    if (routeTableIds.length > 0 && routeTableIds.length !== subnetIds.length) {
      problems.push('routeTableIds must have one entry per subnet id');
    }
    settings.vpc = { vpcId: vpcId ?? '', subnetIds, securityGroupIds, routeTableIds, createEndpoints };
  }
  if (problems.length > 0) throw new SettingsError(problems);
  return settings;
}
