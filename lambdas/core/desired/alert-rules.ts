/**
 * Semantic rules of one alert configuration and its notifications: what Ops Manager would refuse (or silently
 * ignore) although the structure is valid. Checked where the config is written (project or template).
 */
import { SECRET_NOTIFICATION_FIELDS } from '../../opsman/types.ts';
import { suggestion } from './did-you-mean.ts';
import {
  COMMON_NOTIFICATION_FIELDS,
  EVENT_TYPE_NAMES,
  GROUP_ROLES,
  METRIC_EVENT_TYPE,
  NO_INTERVAL_TYPES,
  NOTIFICATION_FIELDS,
  ORG_ROLES,
  THRESHOLD_EVENT_TYPES,
  TYPE_NAME_VALUES,
} from './enums.ts';
import { asArray, asRecord, asString, issueAt } from './issue.ts';
import { formatPath, type LocatedDocument, type PathSegment } from './locate.ts';
import type { ValidationIssue } from './types.ts';

const ALL_ROLES: readonly string[] = [...GROUP_ROLES, ...ORG_ROLES];

const KNOWN_FIELDS = new Set<string>([
  ...COMMON_NOTIFICATION_FIELDS,
  'role',
  ...Object.values(NOTIFICATION_FIELDS).flatMap((rules) => [...rules.required, ...rules.optional]),
]);

const ROLES_BY_TYPE: Record<string, readonly string[]> = { GROUP: GROUP_ROLES, ORG: ORG_ROLES };

/**
 * An ignoreFields entry naming a threshold member its event type never has ignores nothing: the on-call edit it was
 * written for (say of metricThreshold, listed as `threshold`) would be put back on the next apply.
 */
function checkIgnoredThresholds(
  located: LocatedDocument,
  at: PathSegment[],
  ignore: unknown,
  wantsMetric: boolean,
  wantsThreshold: boolean,
  event: string,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  asArray(ignore).forEach((name, i) => {
    const taken = name === 'metricThreshold' ? wantsMetric : name === 'threshold' ? wantsThreshold : true;
    if (taken) return;
    const other =
      name === 'threshold' ? (wantsMetric ? 'metricThreshold' : undefined) : wantsThreshold ? 'threshold' : undefined;
    const where = [...at, 'ignoreFields', i];
    const message = `${formatPath(where)}: event type ${event} has no ${name}, so ignoring it ignores nothing${other === undefined ? '' : `; did you mean "${other}"?`}`;
    issues.push(
      issueAt(located, where, message, {
        found: `"${name}"`,
        ...(other === undefined ? {} : { hint: `did you mean "${other}"?` }),
      }),
    );
  });
  return issues;
}

/**
 * The threshold member an alert config holds under the other's name, or undefined: `threshold` on an
 * OUTSIDE_METRIC_THRESHOLD config without `metricThreshold`, or `metricThreshold` on a TOO_FEW_HEALTHY_MEMBERS-style
 * config without `threshold`. One mistake, reported once as such (the schema's issues inside it are left out: they
 * only say, field by field, that it is the other member).
 */
export function swappedThreshold(value: unknown): 'threshold' | 'metricThreshold' | undefined {
  const config = asRecord(value);
  const event = asString(config?.eventTypeName);
  if (config === undefined || event === undefined) return undefined;
  if (event === METRIC_EVENT_TYPE && config.metricThreshold === undefined && config.threshold !== undefined) {
    return 'threshold';
  }
  if (THRESHOLD_EVENT_TYPES.includes(event) && config.threshold === undefined && config.metricThreshold !== undefined) {
    return 'metricThreshold';
  }
  return undefined;
}

/** Checks one alert config at `at` (e.g. `spec.alertConfigs[3]`). */
export function checkAlertConfig(located: LocatedDocument, at: PathSegment[], value: unknown): ValidationIssue[] {
  const config = asRecord(value);
  if (!config) return [];
  const issues: ValidationIssue[] = [];
  const subject = formatPath(at);
  // An unknown event type is the schema's issue, with a did-you-mean. Which threshold member it takes is unknown: a rule
  // here would say "metricThreshold is only for OUTSIDE_METRIC_THRESHOLD" of a misspelt OUTSIDE_METRIC_THRESHOLDS,
  // asking to delete the member the typo made look wrong.
  const named = asString(config.eventTypeName);
  const event = named !== undefined && (EVENT_TYPE_NAMES as readonly string[]).includes(named) ? named : undefined;
  const swapped = swappedThreshold(config);
  if (event !== undefined && swapped !== undefined) {
    const other = swapped === 'threshold' ? 'metricThreshold' : 'threshold';
    const hint = `did you mean "${other}"?`;
    const message = `${subject}: event type ${event} takes ${other}, not ${swapped}; ${hint}${other === 'metricThreshold' ? ' (it names the metric: metricName, operator, threshold, units)' : ' (operator, threshold, units; no metricName)'}`;
    issues.push(issueAt(located, [...at, swapped], message, { expected: other, found: swapped, hint }, 'key'));
  } else if (event !== undefined) {
    const wantsMetric = event === METRIC_EVENT_TYPE;
    if (wantsMetric && config.metricThreshold === undefined) {
      issues.push(
        issueAt(located, at, `${subject}: missing metricThreshold: event type ${event} needs one`, {
          expected: 'metricThreshold',
        }),
      );
    }
    if (!wantsMetric && config.metricThreshold !== undefined) {
      const message = `${subject}: metricThreshold is only for ${METRIC_EVENT_TYPE}; event type ${event} takes none`;
      issues.push(issueAt(located, [...at, 'metricThreshold'], message, { found: 'metricThreshold' }, 'key'));
    }
    const wantsThreshold = THRESHOLD_EVENT_TYPES.includes(event);
    if (wantsThreshold && config.threshold === undefined) {
      issues.push(
        issueAt(located, at, `${subject}: missing threshold: event type ${event} needs one`, { expected: 'threshold' }),
      );
    }
    if (!wantsThreshold && config.threshold !== undefined) {
      const message = `${subject}: threshold is only for ${THRESHOLD_EVENT_TYPES.join(' and ')}; event type ${event} takes none`;
      issues.push(issueAt(located, [...at, 'threshold'], message, { found: 'threshold' }, 'key'));
    }
    issues.push(...checkIgnoredThresholds(located, at, config.ignoreFields, wantsMetric, wantsThreshold, event));
  }
  asArray(config.matchers).forEach((raw, i) => {
    const matcher = asRecord(raw);
    const operator = asString(matcher?.operator);
    const matched = asString(matcher?.value);
    if (matcher?.fieldName !== 'TYPE_NAME' || matched === undefined) return;
    if ((operator === 'EQUALS' || operator === 'NOT_EQUALS') && !TYPE_NAME_VALUES.includes(matched)) {
      const hint = suggestion(matched, TYPE_NAME_VALUES);
      const message = `${formatPath([...at, 'matchers', i, 'value'])}: a TYPE_NAME matcher compares with one of ${TYPE_NAME_VALUES.join(', ')}; found "${matched}"${hint.text}`;
      issues.push(
        issueAt(located, [...at, 'matchers', i, 'value'], message, {
          expected: TYPE_NAME_VALUES.join(', '),
          found: `"${matched}"`,
          ...hint,
        }),
      );
    }
  });
  asArray(config.notifications).forEach((raw, i) => {
    issues.push(...checkNotification(located, [...at, 'notifications', i], raw));
  });
  return issues;
}

/** Checks one notification: the fields its type requires, takes and refuses. */
export function checkNotification(located: LocatedDocument, at: PathSegment[], value: unknown): ValidationIssue[] {
  const notification = asRecord(value);
  const type = asString(notification?.typeName);
  // Own properties only: a typeName of "__proto__" or "constructor" must not find what every object inherits.
  const rules = type !== undefined && Object.hasOwn(NOTIFICATION_FIELDS, type) ? NOTIFICATION_FIELDS[type] : undefined;
  if (!notification || !type || !rules) return [];
  const issues: ValidationIssue[] = [];
  const subject = formatPath(at);
  const label = `${type} notifications`;
  for (const field of rules.required) {
    const present = notification[field] !== undefined || (field === 'roles' && notification.role !== undefined);
    if (!present) {
      const form = (SECRET_NOTIFICATION_FIELDS as readonly string[]).includes(field)
        ? ' ({secretRef: "<secret id>#<json key>"})'
        : '';
      issues.push(
        issueAt(located, at, `${subject}: missing ${field}: ${label} need ${field}${form}`, { expected: field }),
      );
    }
  }
  const allowed = [...COMMON_NOTIFICATION_FIELDS, ...rules.required, ...rules.optional];
  if (allowed.includes('roles')) allowed.push('role');
  for (const field of Object.keys(notification)) {
    // Unknown names are the schema's to report (with a did-you-mean); this rule is about known fields.
    if (allowed.includes(field) || !KNOWN_FIELDS.has(field)) continue;
    const takes = [...rules.required, ...rules.optional];
    const message = `${subject}: ${field} does not apply to ${label} (they take ${takes.length > 0 ? takes.join(', ') : 'only typeName, delayMin, intervalMin'}); Ops Manager would ignore it`;
    issues.push(issueAt(located, [...at, field], message, { found: field }, 'key'));
  }
  if (NO_INTERVAL_TYPES.includes(type) && notification.intervalMin !== undefined) {
    const message = `${subject}: intervalMin must not be set on ${label}: Ops Manager refuses it for ${NO_INTERVAL_TYPES.join(', ')}`;
    issues.push(issueAt(located, [...at, 'intervalMin'], message, { found: String(notification.intervalMin) }, 'key'));
  }
  if (notification.role !== undefined && notification.roles !== undefined) {
    const message = `${subject}: give either role or roles, not both (role is a shorthand for a one-item roles list)`;
    issues.push(issueAt(located, [...at, 'role'], message, {}, 'key'));
  }
  const valid = ROLES_BY_TYPE[type];
  if (valid) {
    const given =
      notification.role !== undefined
        ? [[notification.role, ['role']]]
        : asArray(notification.roles).map((role, i) => [role, ['roles', i]]);
    for (const [role, path] of given as [unknown, PathSegment[]][]) {
      if (typeof role !== 'string' || valid.includes(role) || !ALL_ROLES.includes(role)) continue;
      const hint = suggestion(role, valid);
      const message = `${formatPath([...at, ...path])}: role ${role} does not apply to ${label}; they take ${valid.join(', ')}${hint.text}`;
      issues.push(
        issueAt(located, [...at, ...path], message, {
          expected: valid.join(', '),
          found: role,
          ...(hint.hint ? { hint: hint.hint } : {}),
        }),
      );
    }
  }
  return issues;
}
