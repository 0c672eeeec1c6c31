// Scenario: `--markdown` renders a PR comment: summary, per-target table, collapsible diff blocks, nothing that breaks out.
import { describe, expect, it } from 'vitest';
import { escapeMarkdown, MARKDOWN_MAX_CHARS, renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { ACME, ANALYTICS, change, PAYMENTS, plan } from '../../helpers/cli-plans.ts';

describe('renderPlanMarkdown', () => {
  it('renders a small plan exactly', () => {
    const p = plan([
      change({ key: 'a', action: 'create', after: { eventTypeName: 'HOST_DOWN' } }),
      change({ target: ANALYTICS, key: 'b', action: 'noop' }),
    ]);
    expect(renderPlanMarkdown(p)).toBe(
      [
        '### opsman-gitops plan',
        '',
        '**Plan: 1 to create, 0 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 1 unchanged.**',
        '',
        '| Target | Create | Update | Delete | Adopt | Blocked | Drifted | Unchanged |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        '| Project payments-prod (5e2211c17a3e5a48f5497de3) | 1 | 0 | 0 | 0 | 0 | 0 | 0 |',
        '| Project analytics-dev (5e2211c17a3e5a48f5497de6) | 0 | 0 | 0 | 0 | 0 | 0 | 1 |',
        '',
        '<details><summary><b>Project payments-prod (5e2211c17a3e5a48f5497de3)</b>: 1 to create</summary>',
        '',
        '```diff',
        '+ alertConfig "a"',
        '    eventTypeName: "HOST_DOWN"',
        '```',
        '',
        '</details>',
        '',
        '<sub>run 20261121T100000Z-abcdef, desired state dddddddddddd</sub>',
        '',
      ].join('\n'),
    );
  });

  it("leads a create's list elements with + and a delete's with -, as in the text plan", () => {
    const matchers = [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'PRIMARY' }];
    const text = renderPlanMarkdown(
      plan([
        change({ key: 'new', action: 'create', after: { matchers } }),
        change({ key: 'old', action: 'delete', id: 'i2', before: { matchers } }),
      ]),
    );
    const element = '{"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"}';
    expect(text).toContain(
      `+ alertConfig "new"\n    matchers:\n      + ${element}\n- alertConfig "old" (id i2)\n    matchers:\n      - ${element}\n`,
    );
  });

  it('says no changes and notes a non-apply mode', () => {
    const text = renderPlanMarkdown(plan([change()], { mode: 'observe' }));
    expect(text).toContain('Mode `observe`: nothing will be written.');
    expect(text).toContain('No changes. Ops Manager matches the desired state.');
    expect(text).not.toContain('<details>');
  });

  it('uses a longer fence when a value holds backticks', () => {
    const p = plan([change({ key: 'k', action: 'update', fields: [{ path: 'x', before: 'a```b', after: 'c' }] })]);
    const text = renderPlanMarkdown(p);
    expect(text).toContain('````diff');
    expect(text).toContain('\n````\n');
  });

  it.each([
    ['a|b', 'a\\|b'],
    ['<script>', '&lt;script&gt;'],
    ['`x`', '\\`x\\`'],
    ['a & b', 'a &amp; b'],
    ['*freeze*', '\\*freeze\\*'],
    ['__init__ ~~x~~', '\\_\\_init\\_\\_ \\~\\~x\\~\\~'],
    ['a\\*b', 'a\\\\\\*b'],
    ['[x](https://evil.example)', '\\[x\\](https://evil.example)'],
    ['SLACK:@jdoe and @acme/dba', 'SLACK:@&#8203;jdoe and @&#8203;acme/dba'],
    ['see #12, not #payments', 'see #&#8203;12, not #payments'],
    ['@1 #2', '@&#8203;1 #&#8203;2'],
    ['first_@last', 'first\\_@last'],
    ['jdoe@acme.example, a @ b, (@x_y)', 'jdoe@acme.example, a @ b, (@&#8203;x\\_y)'],
  ])('escapes %s', (input, output) => {
    expect(escapeMarkdown(input)).toBe(output);
  });

  it('a change window in a section summary (an HTML line, where GitHub renders no Markdown) is escaped as HTML only', () => {
    const p = plan([change({ key: 'k', action: 'create', after: {} })], {
      windowHolds: { [`project:${PAYMENTS.id}`]: { kind: 'deny', windows: ['year_end|<freeze>'], until: 'T' } },
    });
    expect(renderPlanMarkdown(p)).toContain(
      '</b> [mode plan: held by change window year_end|&lt;freeze&gt; (deny) until T: shown, not applied]: 1 to create</summary>',
    );
  });

  it('a target name in a section summary is escaped as HTML: it cannot close the summary or inject a tag', () => {
    const target = { ...PAYMENTS, name: 'a</summary><img src=x>&b' };
    const md = renderPlanMarkdown(plan([change({ target, key: 'k', action: 'create', after: {} })]));
    expect(md).toContain('<summary><b>Project a&lt;/summary&gt;&lt;img src=x&gt;&amp;b (');
    expect(md).not.toContain('<img');
  });

  it('a mention or an issue number in a section summary pings nobody (GitHub links them in HTML lines too)', () => {
    const target = { ...PAYMENTS, name: '@jdoe-#7' };
    const md = renderPlanMarkdown(plan([change({ target, key: 'k', action: 'create', after: {} })]));
    expect(md).toContain('<summary><b>Project @&#8203;jdoe-#&#8203;7 (');
  });

  it('a target name or key with Markdown marks reads as written in the counts table and the blocked list', () => {
    const target = { ...PAYMENTS, name: 'pay|ments_*x*' };
    const md = renderPlanMarkdown(plan([change({ target, key: 'a|b*c*', action: 'blocked', reason: 'r' })]));
    expect(md).toContain('| Project pay\\|ments\\_\\*x\\* (5e2211c17a3e5a48f5497de3) | 0 |');
    expect(md).toContain('- Project pay\\|ments\\_\\*x\\* (5e2211c17a3e5a48f5497de3): alertConfig "a\\|b\\*c\\*"');
  });

  it('shows a noop flagged as drifted in its target section, as the text plan does', () => {
    const md = renderPlanMarkdown(plan([change({ key: 'k', action: 'noop', id: 'i1', drift: { detected: true } })]));
    expect(md).toContain('<details>');
    expect(md).toContain('changed outside opsman-gitops (who and when unknown)');
  });

  it('a warning naming a change window *freeze* quotes it as written, not in italics', () => {
    const md = renderPlanMarkdown(plan([], { warnings: ['change window *freeze* never opens again'] }));
    expect(md).toContain('> **Warning:** change window \\*freeze\\* never opens again\n');
  });

  it('lists failures', () => {
    const text = renderPlanMarkdown(
      plan([], { failures: [{ target: ANALYTICS, phase: 'apply', message: 'PUT failed: 500' }] }),
    );
    expect(text).toContain(
      '**Failures**\n\n- Project analytics-dev (5e2211c17a3e5a48f5497de6) \\[apply\\]: PUT failed: 500\n',
    );
  });

  it('says right under the counts that failed targets are left out of them, counting targets, not failures', () => {
    const refused = 'GET /usage/groups/{groupId}/defaultServerType: Ops Manager refused the request for this API key';
    const text = renderPlanMarkdown(
      plan([change({ target: ACME, kind: 'defaultServerType', key: 'defaultServerType', action: 'update' })], {
        failures: [
          { target: ANALYTICS, phase: 'read', message: refused, code: 'OPSMAN_AUTH_ERROR' },
          { target: ANALYTICS, phase: 'plan', message: 'team 6a1f... does not exist' },
          { target: PAYMENTS, phase: 'read', message: refused, code: 'OPSMAN_AUTH_ERROR' },
        ],
      }),
    );
    expect(text).toContain(
      '**Plan: 0 to create, 1 to update, 0 to delete, 0 to adopt, 0 blocked, 0 drifted, 0 unchanged.**\n\n' +
        '**Incomplete: 2 targets could not be planned; their changes are neither shown nor counted (Failures, at the end).**\n',
    );
    const one = renderPlanMarkdown(plan([], { failures: [{ target: ANALYTICS, phase: 'read', message: refused }] }));
    expect(one).toContain('**Incomplete: 1 target could not be planned; its changes are neither shown nor counted');
    expect(renderPlanMarkdown(plan([change({ action: 'create' })]))).not.toContain('Incomplete');
  });

  describe('size', () => {
    /** A first rollout: `projects` targets, each with `alerts` creates carrying a longish email address. */
    function rollout(projects: number, alerts: number) {
      const changes = [];
      for (let p = 0; p < projects; p++) {
        const target = { type: 'project' as const, id: p.toString(16).padStart(24, '0'), name: `svc-${p}` };
        for (let a = 0; a < alerts; a++) {
          changes.push(
            change({
              target,
              key: `alert-${a}`,
              action: 'create',
              after: {
                eventTypeName: 'HOST_DOWN',
                notifications: [{ typeName: 'EMAIL', emailAddress: `team-${p}@acme.example` }],
              },
            }),
          );
        }
      }
      return plan(changes);
    }

    it('a 1,000-project rollout fits one GitHub comment, counts complete, what was left out said', () => {
      const text = renderPlanMarkdown(rollout(1000, 20));
      expect(text.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
      expect(text).toContain('**Plan: 20000 to create, 0 to update, 0 to delete');
      const shown = text.match(/<details>/g)?.length ?? 0;
      expect(shown).toBeGreaterThan(0);
      expect(text).toContain(
        `_${1000 - shown} more target(s) with changes are not shown, to keep this comment under 65,000 characters (GitHub refuses longer ones).`,
      );
      expect(text).toMatch(/\| \d+ more targets with changes \(in the summary line's counts\) \|/);
    });

    it('leaves a plan that fits exactly as it was', () => {
      const small = rollout(3, 2);
      expect(renderPlanMarkdown(small, 'opsman-gitops plan', 1_000_000)).toBe(renderPlanMarkdown(small));
      expect(renderPlanMarkdown(small)).not.toContain('not shown');
    });

    it('counts as left out only the targets with changes, not the quiet ones after the first left out', () => {
      const big = rollout(40, 20).changes;
      const quiet = Array.from({ length: 10 }, (_, p) =>
        change({
          target: { type: 'project', id: `f${p.toString(16).padStart(23, '0')}`, name: `q-${p}` },
          key: 'k',
        }),
      );
      const text = renderPlanMarkdown(plan([...big, ...quiet]), 'opsman-gitops plan', 20_000);
      const shown = text.match(/<details>/g)?.length ?? 0;
      expect(shown).toBeGreaterThan(0);
      expect(text).toContain(`_${40 - shown} more target(s) with changes are not shown`);
    });

    it('folding a large table, keeps the row of a target whose only change is blocked, drifted or a release', () => {
      const id = (p: number) => p.toString(16).padStart(24, '0');
      const quiet = Array.from({ length: 120 }, (_, p) =>
        change({ target: { type: 'project', id: id(p), name: `q-${p}` }, key: 'k' }),
      );
      const odd = [
        change({ target: { type: 'project', id: id(200), name: 'blk' }, key: 'k', action: 'blocked' }),
        change({
          target: { type: 'project', id: id(201), name: 'dft' },
          key: 'k',
          action: 'drift',
          drift: { detected: true },
        }),
        change({ target: { type: 'project', id: id(202), name: 'rel' }, key: 'k', action: 'release', id: 'i1' }),
      ];
      const text = renderPlanMarkdown(plan([...quiet, ...odd]));
      expect(text).toContain('| 120 more targets, nothing to change |');
      for (const name of ['blk', 'dft', 'rel']) expect(text).toContain(`| Project ${name} (`);
    });

    it("counts the blank line after each quoted note against the notes' share of the budget", () => {
      // Each quoted note is 49 characters and an empty line follows it (2 newlines): 51 each, a share of 100 holds one.
      const notes = ['a', 'b', 'c'].map((c) => c.repeat(41));
      const md = renderPlanMarkdown(plan([], { notes }), 'opsman-gitops plan', 1200);
      expect(md).toContain(`> Note: ${'a'.repeat(41)}\n`);
      expect(md).not.toContain(`> Note: ${'b'.repeat(41)}`);
      expect(md).toContain('> 2 more notes (in the JSON plan)');
    });

    it('lists every row of a table of exactly 100 targets (folding starts past 100)', () => {
      const targets = Array.from({ length: 100 }, (_, p) =>
        change({
          target: { type: 'project', id: p.toString(16).padStart(24, '0'), name: `q-${p}` },
          key: 'k',
          action: p === 0 ? 'create' : 'noop',
        }),
      );
      const text = renderPlanMarkdown(plan(targets));
      expect(text).not.toContain('more targets, nothing to change');
      expect(text).toContain('| Project q-99 (000000000000000000000063) | 0 | 0 | 0 | 0 | 0 | 0 | 1 |');
    });

    it('folds the unchanged targets of a large table into one row and quotes twenty warnings', () => {
      const quiet = Array.from({ length: 150 }, (_, p) =>
        change({
          target: { type: 'project', id: p.toString(16).padStart(24, '0'), name: `q-${p}` },
          key: 'k',
          action: 'noop',
        }),
      );
      const warnings = Array.from({ length: 25 }, (_, i) => `warning ${i}`);
      const text = renderPlanMarkdown(plan(quiet, { warnings }));
      expect(text).toContain('| 150 more targets, nothing to change | | | | | | | |');
      expect(text.match(/> \*\*Warning:\*\*/g)).toHaveLength(20);
      expect(text).toContain('> 5 more warnings (in the JSON plan)');
    });
  });
});
