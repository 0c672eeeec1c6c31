// Scenario: the plan's extras render: unmanaged objects as a count per target, stricter target modes, run warnings.
import { describe, expect, it } from 'vitest';
import { targetModeNote } from '../../../lambdas/core/render/held-recap.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText, unmanagedNote } from '../../../lambdas/core/render/plan-text.ts';
import { renderArchiveSummary } from '../../../lambdas/core/render/run-summary.ts';
import { ARCHIVE_TARGET } from '../../../lambdas/core/report.ts';
import { ANALYTICS, change, PAYMENTS, plan, report } from '../../helpers/cli-plans.ts';

const UNMANAGED = [
  { target: PAYMENTS, kind: 'alertConfig' as const, id: 'u1', summary: 'HOST_DOWN (enabled)' },
  { target: PAYMENTS, kind: 'alertConfig' as const, id: 'u2', summary: 'NO_PRIMARY (enabled)' },
  { target: ANALYTICS, kind: 'alertConfig' as const, id: 'u3', summary: 'HOST_DOWN (disabled)' },
];

describe('notes of a target', () => {
  it.each([
    {
      target: PAYMENTS,
      note: '(2 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    },
    {
      target: ANALYTICS,
      note: '(1 unmanaged object left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    },
    { target: { ...ANALYTICS, id: 'other' }, note: '' },
  ])('unmanaged of $target.id', ({ target, note }) => {
    expect(unmanagedNote(plan([], { unmanaged: UNMANAGED }), target)).toBe(note);
  });

  it.each([
    { planMode: 'apply' as const, targetMode: 'plan' as const, note: ' [mode plan: shown, not applied]' },
    {
      planMode: 'apply' as const,
      targetMode: 'observe' as const,
      note: ' [mode observe: drift is reported, nothing written]',
    },
    { planMode: 'apply' as const, targetMode: 'apply' as const, note: '' },
    { planMode: 'plan' as const, targetMode: 'observe' as const, note: '' },
    { planMode: 'apply' as const, targetMode: undefined, note: '' },
  ])('plan $planMode, target $targetMode', ({ planMode, targetMode, note }) => {
    const targetModes = targetMode === undefined ? undefined : { [`project:${PAYMENTS.id}`]: targetMode };
    expect(targetModeNote(plan([], { mode: planMode, targetModes }), PAYMENTS)).toBe(note);
  });

  // The plan command previews an apply: a target its own mode keeps from being written is marked while another writes.
  it.each([
    { targetMode: 'plan' as const, other: 'apply' as const, note: ' [mode plan: shown, not applied]' },
    {
      targetMode: 'observe' as const,
      other: 'apply' as const,
      note: ' [mode observe: drift is reported, nothing written]',
    },
    { targetMode: 'apply' as const, other: 'plan' as const, note: '' },
    // Every target in plan mode (a run capped by --mode plan): the header says it once, no target is marked.
    { targetMode: 'plan' as const, other: 'plan' as const, note: '' },
  ])('the plan command, target $targetMode beside one in $other', ({ targetMode, other, note }) => {
    const targetModes = { [`project:${PAYMENTS.id}`]: targetMode, [`project:${ANALYTICS.id}`]: other };
    const p = plan([], { mode: 'plan', targetModes });
    expect(targetModeNote(p, PAYMENTS)).toBe(note);
    expect(targetModeNote(p, PAYMENTS, 'observe')).toBe('');
  });
});

describe('renderPlanText extras', () => {
  const P = plan([change({ key: 'a', action: 'create' }), change({ target: ANALYTICS, key: 'b' })], {
    unmanaged: UNMANAGED,
    targetModes: { [`project:${PAYMENTS.id}`]: 'plan' },
    warnings: ['state.json was corrupt and was set aside'],
  });

  it('prints warnings first, mode notes on headers, unmanaged counts under targets', () => {
    expect(renderPlanText(P)).toBe(
      [
        'opsman-gitops plan 20261121T100000Z-abcdef',
        '',
        'Warning: state.json was corrupt and was set aside',
        '',
        'Project payments-prod (5e2211c17a3e5a48f5497de3) [mode plan: shown, not applied]',
        '  + alertConfig "a"',
        '  (2 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
        '',
        'Project analytics-dev (5e2211c17a3e5a48f5497de6): no changes (1 unchanged)',
        '  (1 unmanaged object left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
        '',
        // The summary counts the held create: the line before it says it is not applied now.
        "Held: 1 change in 1 target is shown, not applied now (a change window or the target's mode: see [mode ...] on each target above); the summary counts it.",
        '',
        'Plan: 1 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 1 unchanged.',
        '',
      ].join('\n'),
    );
  });

  it('carries the same notes into Markdown', () => {
    const md = renderPlanMarkdown(P);
    expect(md).toContain('> **Warning:** state.json was corrupt and was set aside');
    expect(md).toContain(
      '<b>Project payments-prod (5e2211c17a3e5a48f5497de3)</b> [mode plan: shown, not applied]: 1 to create',
    );
    expect(md).toContain(
      '(2 unmanaged objects left alone: Ops Manager defaults, hand-made or released configs, those of other tools)',
    );
    expect(md).toContain(
      "Held: 1 change in 1 target is shown, not applied now (a change window or the target's mode: see each target's header below); the summary counts it.",
    );
  });

  it('says nothing of held changes when no held target writes', () => {
    const free = { ...P, targetModes: {} };
    expect(renderPlanText(free)).not.toContain('Held:');
    expect(renderPlanMarkdown(free)).not.toContain('Held:');
  });
});

describe('renderArchiveSummary', () => {
  it.each([
    {
      name: 'a new manifest and usage',
      archive: {
        manifest: {
          sha256: 'ab'.repeat(32),
          key: 'manifests/sha256/x.json',
          changed: true,
          location: '/a/manifests/sha256/x.json',
        },
        usage: {
          month: '2026-11',
          keys: ['usage/2026-11/host-assignments.json', 'usage/2026-11/physical-hosts.json'],
          projects: 3,
        },
        errors: [],
      },
      text: [
        'Version manifest: sha256 abababababab (new, stored)',
        '  /a/manifests/sha256/x.json',
        'Usage 2026-11: 2 snapshots (physical hosts, host assignments of 3 projects)',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'usage that closed the previous month: counted and labelled apart',
      archive: {
        usage: {
          month: '2026-12',
          keys: [
            'usage/2026-11/host-assignments.json',
            'usage/2026-12/host-assignments.json',
            'usage/2026-12/physical-hosts.json',
          ],
          projects: 3,
        },
        errors: [],
      },
      text: [
        'Usage 2026-12: 2 snapshots (physical hosts, host assignments of 3 projects)',
        'Usage 2026-11: closed (host assignments read again for the whole month)',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'an unchanged manifest and an error',
      archive: {
        manifest: { sha256: 'cd'.repeat(32), key: 'k', changed: false, location: '/a/k' },
        errors: ['usage: GET /usage/groups failed: 500'],
      },
      text: [
        'Version manifest: sha256 cdcdcdcdcdcd (unchanged since the last archive)',
        '  /a/k',
        'x usage: GET /usage/groups failed: 500',
        'Archive finished with 1 error; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'a known manifest whose lost or damaged copy was written again',
      archive: {
        manifest: { sha256: 'ef'.repeat(32), key: 'k', changed: false, restored: true as const, location: '/a/k' },
        errors: [],
      },
      text: [
        'Version manifest: sha256 efefefefefef (known, copy restored)',
        '  /a/k',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'physical hosts stored, host assignments not: only what was stored is named',
      archive: {
        usage: { month: '2026-11', keys: ['usage/2026-11/physical-hosts.json'], projects: 0 },
        errors: ['host assignments: cannot write /a/usage/2026-11/host-assignments.json: no space left (ENOSPC)'],
      },
      text: [
        'Usage 2026-11: 1 snapshot (physical hosts)',
        'x host assignments: cannot write /a/usage/2026-11/host-assignments.json: no space left (ENOSPC)',
        'Archive finished with 1 error; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'host assignments stored, physical hosts not',
      archive: {
        usage: { month: '2026-11', keys: ['usage/2026-11/host-assignments.json'], projects: 1 },
        errors: ['physical hosts: GET /usage/groups failed: 500'],
      },
      text: [
        'Usage 2026-11: 1 snapshot (host assignments of 1 project)',
        'x physical hosts: GET /usage/groups failed: 500',
        'Archive finished with 1 error; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'a known manifest that is not the one the last archive found (Ops Manager went back to it)',
      archive: {
        manifest: { sha256: 'ab'.repeat(32), key: 'k', changed: false, previous: 'cd'.repeat(32), location: '/a/k' },
        errors: [],
      },
      text: [
        'Version manifest: sha256 abababababab (known: seen before, but changed since the last archive, which found sha256 cdcdcdcdcdcd)',
        '  /a/k',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'a known manifest gone back to, whose copy was also restored',
      archive: {
        manifest: {
          sha256: 'ab'.repeat(32),
          key: 'k',
          changed: false,
          restored: true as const,
          previous: 'cd'.repeat(32),
          location: '/a/k',
        },
        errors: [],
      },
      text: [
        'Version manifest: sha256 abababababab (known, copy restored: seen before, but changed since the last archive, which found sha256 cdcdcdcdcdcd)',
        '  /a/k',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'a new manifest is "new, stored" whatever else the report carries',
      archive: {
        manifest: { sha256: 'ab'.repeat(32), key: 'k', changed: true, previous: 'cd'.repeat(32), location: '/a/k' },
        usage: { month: '2026-11', keys: ['usage/2026-11/odd\u001b[31m.json'] },
        errors: [],
      },
      text: [
        'Version manifest: sha256 abababababab (new, stored)',
        '  /a/k',
        'Usage 2026-11: 1 snapshot (odd\\u001b[31m.json)',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'usage turned off in Settings: said on a line of its own',
      archive: {
        manifest: { sha256: 'ab'.repeat(32), key: 'k', changed: false, location: '/a/k' },
        off: ['usage' as const],
        errors: [],
      },
      text: [
        'Version manifest: sha256 abababababab (unchanged since the last archive)',
        '  /a/k',
        'Usage: not archived (Settings turns off archive.usage)',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      name: 'the manifest turned off in Settings',
      archive: {
        usage: { month: '2026-11', keys: ['usage/2026-11/physical-hosts.json'] },
        off: ['versionManifest' as const],
        errors: [],
      },
      text: [
        'Usage 2026-11: 1 snapshot (physical hosts)',
        'Version manifest: not archived (Settings turns off archive.versionManifest)',
        'Archive complete; 12 API calls.',
        'Report: /r.json',
        '',
      ],
    },
    {
      // The command says why nothing was written; a "not archived" line per part would only repeat it.
      name: 'both parts turned off in Settings: no line for either',
      archive: { off: ['versionManifest' as const, 'usage' as const], errors: [] },
      text: ['Archive complete; 12 API calls.', 'Report: /r.json', ''],
    },
  ])('$name', ({ archive, text }) => {
    expect(renderArchiveSummary(report(plan([]), [], { archive, reportLocation: '/r.json' }))).toBe(text.join('\n'));
  });

  it('an archive error (also recorded as a failure of the archive target) is listed and counted once', () => {
    const error =
      'physical hosts: cannot write /a/usage/2026-11/physical-hosts.json: no space left on the device (ENOSPC)';
    const failed = report(plan([]), [], {
      archive: { usage: { month: '2026-11', keys: [], projects: 0 }, errors: [error] },
      failures: [{ target: { ...ARCHIVE_TARGET }, phase: 'apply', message: error }],
      warnings: ['the run report could not be written: cannot write /a/reports/x.json: no space left on the device'],
    });
    expect(renderArchiveSummary(failed)).toBe(
      [
        'Usage 2026-11: nothing stored',
        `x ${error}`,
        'Warning: the run report could not be written: cannot write /a/reports/x.json: no space left on the device',
        'Archive finished with 1 error; 12 API calls.',
        '',
      ].join('\n'),
    );
  });
});
