/**
 * The rules of Settings.changeWindows beyond the schema (which checks members, kinds, days and HH:MM times): each
 * window is absolute (`from`, `until`) or weekly (`days`, `start`, `end`, optional `timeZone`), never both; instants are
 * RFC 3339 with Z or an offset and `from` is before `until`; the time zone is one the runtime's Intl knows; names are
 * unique; `projects` name projects of the desired state (an error: a mistyped id would leave a freeze holding nothing;
 * an organization's id there is said to be one, since a window's `projects` never matches an organization).
 */
import { parseInstant } from '../change-windows.ts';
import { knownTimeZone } from '../zoned-time.ts';
import { suggestion } from './did-you-mean.ts';
import { asArray, asRecord, asString, issueAt, where } from './issue.ts';
import type { ParsedDocument } from './parse.ts';
import type { ValidationIssue } from './types.ts';

const ABSOLUTE = ['from', 'until'] as const;
const WEEKLY = ['days', 'start', 'end', 'timeZone'] as const;
const SHAPES = 'a change window is either absolute (from and until) or weekly (days, start and end; timeZone optional)';

function checkShape(settings: ParsedDocument, w: Record<string, unknown>, at: (string | number)[]): ValidationIssue[] {
  const absolute = ABSOLUTE.filter((k) => w[k] !== undefined);
  const weekly = WEEKLY.filter((k) => w[k] !== undefined);
  if (absolute.length > 0 && weekly.length > 0) {
    const message = `${weekly[0]} in an absolute window (it has ${absolute[0]}): ${SHAPES}`;
    return [issueAt(settings, [...at, weekly[0] as string], message, { expected: SHAPES }, 'key')];
  }
  const missing =
    absolute.length > 0
      ? ABSOLUTE.filter((k) => w[k] === undefined)
      : (['days', 'start', 'end'] as const).filter((k) => w[k] === undefined);
  if (missing.length === 0) return [];
  return [issueAt(settings, at, `change window without ${missing.join(', ')}: ${SHAPES}`, { expected: SHAPES })];
}

function checkInstants(
  settings: ParsedDocument,
  w: Record<string, unknown>,
  at: (string | number)[],
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const times: Partial<Record<'from' | 'until', number>> = {};
  for (const key of ABSOLUTE) {
    const text = asString(w[key]);
    if (text === undefined) continue;
    const ms = parseInstant(text);
    if (ms === undefined) {
      const message = `${key} ${JSON.stringify(text)} is not an RFC 3339 date-time with Z or an offset (2026-12-18T00:00:00Z, 2026-12-18T08:00:00+01:00)`;
      issues.push(issueAt(settings, [...at, key], message, { expected: 'an RFC 3339 date-time', found: text }));
    } else times[key] = ms;
  }
  if (times.from !== undefined && times.until !== undefined && times.from >= times.until) {
    const message = `until ${String(w.until)} is not after from ${String(w.from)}: the window would never be open`;
    issues.push(
      issueAt(settings, [...at, 'until'], message, { expected: 'an instant after from', found: String(w.until) }),
    );
  }
  return issues;
}

function checkTimeZone(
  settings: ParsedDocument,
  w: Record<string, unknown>,
  at: (string | number)[],
): ValidationIssue[] {
  const zone = asString(w.timeZone);
  if (zone === undefined || knownTimeZone(zone)) return [];
  // The zones this Node.js knows (the same Intl that checks them): `Europe/Pariss`, `europe/paris` get their name.
  const near = suggestion(zone, Intl.supportedValuesOf('timeZone'));
  const message = `unknown time zone ${JSON.stringify(zone)}: an IANA time zone such as Europe/Paris or Etc/UTC${near.text}`;
  return [
    issueAt(settings, [...at, 'timeZone'], message, {
      expected: 'an IANA time zone',
      found: zone,
      ...(near.hint ? { hint: near.hint } : {}),
    }),
  ];
}

function checkProjects(
  settings: ParsedDocument,
  w: Record<string, unknown>,
  at: (string | number)[],
  projectIds: readonly string[],
  orgNames: ReadonlyMap<string, string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  asArray(w.projects).forEach((raw, i) => {
    if (typeof raw !== 'string' || !/^[0-9a-f]{24}$/.test(raw) || projectIds.includes(raw)) return;
    const org = orgNames.get(raw);
    if (org !== undefined) {
      // A did-you-mean to the nearest project id would point at an unrelated project: say what the id is instead.
      const message = `${raw} is the orgId of organization ${org}, not a project: a window's projects never match an organization (a window without projects holds every target, organizations included)`;
      issues.push(
        issueAt(settings, [...at, 'projects', i], message, {
          expected: 'the projectId of a Project document',
          found: raw,
        }),
      );
      return;
    }
    const hint = suggestion(raw, projectIds);
    const message = `project ${raw} is not in the desired state: the window would hold nothing there${hint.text}`;
    issues.push(
      issueAt(settings, [...at, 'projects', i], message, {
        expected: 'the projectId of a Project document',
        found: raw,
        ...(hint.hint ? { hint: hint.hint } : {}),
      }),
    );
  });
  return issues;
}

/**
 * Every issue of the Settings document's changeWindows; `projectIds` are the desired state's projects, `orgNames` its
 * organizations (orgId -> name).
 */
export function checkChangeWindows(
  settings: ParsedDocument | undefined,
  projectIds: readonly string[],
  orgNames: ReadonlyMap<string, string>,
): ValidationIssue[] {
  if (settings === undefined) return [];
  const windows = asArray(asRecord(asRecord(settings.value)?.spec)?.changeWindows);
  const issues: ValidationIssue[] = [];
  const names = new Map<string, number>();
  windows.forEach((raw, i) => {
    const w = asRecord(raw);
    if (w === undefined) return;
    const at = ['spec', 'changeWindows', i];
    const name = asString(w.name);
    const first = name === undefined ? undefined : names.get(name);
    if (name !== undefined && first !== undefined) {
      const message = `duplicate change window name ${name}: already declared at ${where(settings, ['spec', 'changeWindows', first, 'name'])}`;
      issues.push(issueAt(settings, [...at, 'name'], message, { expected: 'a window name used once', found: name }));
    } else if (name !== undefined) names.set(name, i);
    issues.push(
      ...checkShape(settings, w, at),
      ...checkInstants(settings, w, at),
      ...checkTimeZone(settings, w, at),
      ...checkProjects(settings, w, at, projectIds, orgNames),
    );
  });
  return issues;
}
