// Scenario: Settings.changeWindows is validated where it is written: each bad window gives one issue at its
// file:line:column (unknown day or kind, bad time, bad instant, from >= until, unknown time zone, mixed or missing
// shape, duplicate name, unknown project), and a good one loads with its default time zone.
import { describe, expect, it } from 'vitest';
import { windowOpen } from '../../../lambdas/core/change-windows.ts';
import { loadDesiredState, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';
import type { ChangeWindow } from '../../../lambdas/core/model.ts';
import { MemorySource, projectYaml } from './memory-source.ts';

const PROJECT = projectYaml('  alertConfigs: []\n');

/** A Settings document whose windows are `lines` (line 5 is the first window's `- name:` line). */
function settings(lines: string): string {
  return `apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  changeWindows:\n${lines}`;
}

async function issuesOf(windows: string): Promise<ValidationIssue[]> {
  const result = await loadDesiredState(new MemorySource({ 'p.yaml': PROJECT, 'settings.yaml': settings(windows) }));
  return result.ok ? [] : result.issues;
}

const weekly = (extra: string) =>
  `    - name: bh\n      kind: allow\n      days: [Mon, Fri]\n      start: "09:00"\n      end: "17:00"\n${extra}`;
const absolute = (from: string, until: string, extra = '') =>
  `    - name: freeze\n      kind: deny\n      from: ${from}\n      until: ${until}\n${extra}`;

interface Case {
  rule: string;
  windows: string;
  want: { line: number; column: number; path: string; message: string };
}

const CASES: Case[] = [
  {
    rule: 'unknown day, with a did-you-mean',
    windows: weekly('').replace('[Mon, Fri]', '[Mon, Fry]'),
    want: { line: 7, column: 19, path: 'spec.changeWindows[0].days[1]', message: 'did you mean "Fri"?' },
  },
  {
    rule: 'a day written in full or cut after three letters, with the short name as did-you-mean',
    windows: weekly('').replace('[Mon, Fri]', '[Monday, Fri]'),
    want: {
      line: 7,
      column: 14,
      path: 'spec.changeWindows[0].days[0]',
      message: 'found "Monday"; did you mean "Mon"?',
    },
  },
  {
    rule: 'another day in full',
    windows: weekly('').replace('[Mon, Fri]', '[Mon, Wednesday]'),
    want: {
      line: 7,
      column: 19,
      path: 'spec.changeWindows[0].days[1]',
      message: 'found "Wednesday"; did you mean "Wed"?',
    },
  },
  {
    rule: 'unknown kind',
    windows: weekly('').replace('kind: allow', 'kind: alow'),
    want: { line: 6, column: 13, path: 'spec.changeWindows[0].kind', message: 'did you mean "allow"?' },
  },
  {
    rule: 'bad time',
    windows: weekly('').replace('"17:00"', '"25:00"'),
    want: { line: 9, column: 12, path: 'spec.changeWindows[0].end', message: 'HH:MM' },
  },
  {
    rule: 'instant without an offset',
    windows: absolute('2026-12-18T00:00:00', '2027-01-04T08:00:00Z'),
    want: { line: 7, column: 13, path: 'spec.changeWindows[0].from', message: 'not an RFC 3339 date-time' },
  },
  {
    rule: 'a day that does not exist',
    windows: absolute('2026-02-30T00:00:00Z', '2027-01-04T08:00:00Z'),
    want: { line: 7, column: 13, path: 'spec.changeWindows[0].from', message: 'not an RFC 3339 date-time' },
  },
  {
    rule: 'from >= until (offsets count)',
    windows: absolute('2026-12-18T09:00:00+01:00', '2026-12-18T08:00:00Z'),
    want: { line: 8, column: 14, path: 'spec.changeWindows[0].until', message: 'is not after from' },
  },
  {
    rule: 'unknown time zone',
    windows: weekly('      timeZone: Europe/Pariss\n'),
    want: {
      line: 10,
      column: 17,
      path: 'spec.changeWindows[0].timeZone',
      message: 'unknown time zone "Europe/Pariss"',
    },
  },
  {
    rule: 'a misspelt time zone, with its did-you-mean',
    windows: weekly('      timeZone: Europe/Berln\n'),
    want: {
      line: 10,
      column: 17,
      path: 'spec.changeWindows[0].timeZone',
      message:
        'unknown time zone "Europe/Berln": an IANA time zone such as Europe/Paris or Etc/UTC; did you mean "Europe/Berlin"?',
    },
  },
  {
    rule: 'absolute and weekly mixed',
    windows: absolute('2026-12-18T00:00:00Z', '2027-01-04T08:00:00Z', '      days: [Mon]\n'),
    want: { line: 9, column: 7, path: 'spec.changeWindows[0].days', message: 'days in an absolute window' },
  },
  {
    rule: 'neither shape',
    windows: '    - name: x\n      kind: deny\n      start: "09:00"\n',
    want: { line: 5, column: 7, path: 'spec.changeWindows[0]', message: 'change window without days, end' },
  },
  {
    rule: 'duplicate name',
    windows: `${weekly('')}${weekly('')}`,
    want: { line: 10, column: 13, path: 'spec.changeWindows[1].name', message: 'already declared at settings.yaml:5' },
  },
  {
    rule: 'a project not in the desired state',
    windows: weekly('      projects: [5e2211c17a3e5a48f5497de4]\n'),
    want: {
      line: 10,
      column: 18,
      path: 'spec.changeWindows[0].projects[0]',
      message: 'project 5e2211c17a3e5a48f5497de4 is not in the desired state',
    },
  },
];

describe('change window rules', () => {
  it.each(CASES)('$rule', async ({ windows, want }) => {
    const issues = await issuesOf(windows);
    expect(issues).toHaveLength(1);
    const [issue] = issues as [ValidationIssue];
    expect({ file: issue.file, line: issue.line, column: issue.column, path: issue.path }).toEqual({
      file: 'settings.yaml',
      line: want.line,
      column: want.column,
      path: want.path,
    });
    expect(`${issue.message} ${issue.hint ?? ''}`).toContain(want.message);
  });

  it("says an organization's id in projects is one, with no did-you-mean to an unrelated project", async () => {
    const org =
      'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata:\n  name: acme\n  orgId: 5e2211c17a3e5a48f5497de0\nspec: {}\n';
    const windows = weekly('      projects: [5e2211c17a3e5a48f5497de0]\n');
    const result = await loadDesiredState(
      new MemorySource({ 'p.yaml': PROJECT, 'o.yaml': org, 'settings.yaml': settings(windows) }),
    );
    const issues = result.ok ? [] : result.issues;
    expect(issues.map((i) => [`${i.file}:${i.line}:${i.column}`, i.path, i.message, i.hint])).toEqual([
      [
        'settings.yaml:10:18',
        'spec.changeWindows[0].projects[0]',
        "5e2211c17a3e5a48f5497de0 is the orgId of organization acme, not a project: a window's projects never match an organization (a window without projects holds every target, organizations included)",
        undefined,
      ],
    ]);
  });

  it("takes the IANA database's POSIX-style zone names (EST5EDT, PST8PDT, GMT0) and refuses a UTC offset", async () => {
    for (const zone of ['EST5EDT', 'PST8PDT', 'CST6CDT', 'GMT0', 'Etc/GMT+5', 'America/New_York'])
      expect(await issuesOf(weekly(`      timeZone: ${zone}\n`)), zone).toEqual([]);
    // EST5EDT follows US daylight saving: 09:00 there is 14:00Z in January and 13:00Z in July.
    const w: ChangeWindow = {
      name: 'w',
      kind: 'allow',
      days: ['Mon'],
      start: '09:00',
      end: '10:00',
      timeZone: 'EST5EDT',
    };
    expect(windowOpen(w, Date.parse('2026-01-05T14:30:00Z'))).toBe(true);
    expect(windowOpen(w, Date.parse('2026-07-06T13:30:00Z'))).toBe(true);
    expect(windowOpen(w, Date.parse('2026-07-06T14:30:00Z'))).toBe(false);
    const offset = await issuesOf(weekly('      timeZone: "+05:30"\n'));
    expect(offset.map((i) => [i.path, i.message.split(':')[0]])).toEqual([
      ['spec.changeWindows[0].timeZone', 'unknown time zone "+05'],
    ]);
  });

  it('loads good windows, a weekly one with the default time zone', async () => {
    const windows = `${weekly('      projects: [5e2211c17a3e5a48f5497de3]\n')}${absolute('2026-12-18T00:00:00Z', '2027-01-04T08:00:00+01:00')}`;
    const result = await loadDesiredState(new MemorySource({ 'p.yaml': PROJECT, 'settings.yaml': settings(windows) }));
    expect(result.ok ? result.state.settings.changeWindows : result.issues).toEqual([
      {
        name: 'bh',
        kind: 'allow',
        days: ['Mon', 'Fri'],
        start: '09:00',
        end: '17:00',
        timeZone: 'Etc/UTC',
        projects: ['5e2211c17a3e5a48f5497de3'],
      },
      { name: 'freeze', kind: 'deny', from: '2026-12-18T00:00:00Z', until: '2027-01-04T08:00:00+01:00' },
    ]);
  });
});
