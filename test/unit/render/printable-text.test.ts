// Scenario: text from Ops Manager (who changed a drifted config, an error's detail, a warning) and from a saved plan
// (a target name) holds terminal escapes, a newline and bidi or zero-width characters: every renderer shows them as
// `\uXXXX`, on the line they belong to, never raw.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../lambdas/core/model.ts';
import { printable } from '../../../lambdas/core/printable.ts';
import { canonicalize, renderPlanJson } from '../../../lambdas/core/render/json.ts';
import { renderPlanMarkdown } from '../../../lambdas/core/render/plan-markdown.ts';
import { renderPlanText } from '../../../lambdas/core/render/plan-text.ts';
import { renderRunSummary } from '../../../lambdas/core/render/run-summary.ts';
import { ANSI_STYLE } from '../../../lambdas/core/render/style.ts';
import { change, PAYMENTS, plan, report } from '../../helpers/cli-plans.ts';

/** ESC sequences (clear screen, set the window title), a newline that would forge a plan line, RLO, ZWSP, C1 CSI. */
const HOSTILE = 'a\u001b[2J\u001b]0;owned\u0007\n  - alertConfig "all"\u202egnp.exe\u200b\u009b1m\u2028z';
const SHOWN = 'a\\u001b[2J\\u001b]0;owned\\u0007\\u000a  - alertConfig "all"\\u202egnp.exe\\u200b\\u009b1m\\u2028z';

/** Anything a terminal acts on, except the newline ending each line and the renderer's own SGR colour codes. */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must never reach the terminal.
  /\u001b(?!\[[0-9;]*m)|[\u0000-\u0009\u000b-\u001a\u001c-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff]/;

const HOSTILE_PLAN: Plan = plan(
  [
    change({
      target: { ...PAYMENTS, name: `payments${HOSTILE}` },
      key: 'host-down',
      action: 'update',
      id: 'i1',
      reason: `1 field(s) differ ${HOSTILE}`,
      fields: [{ path: 'enabled', before: false, after: true }],
      drift: {
        detected: true,
        attribution: [
          {
            eventTypeName: 'ALERT_CONFIG_DISABLED_AUDIT',
            created: '2026-11-21T10:00:00Z',
            actor: `mallory${HOSTILE}`,
            actorType: 'user',
            remoteAddress: '10.0.0.1',
            eventId: 'e1',
          },
        ],
      },
    }),
  ],
  {
    warnings: [`state note ${HOSTILE}`],
    failures: [
      {
        target: { type: 'project', id: '5e2211c17a3e5a48f5497de7', name: 'ledger-prod' },
        phase: 'read',
        message: `Ops Manager refused the request (500 UNEXPECTED_ERROR: ${HOSTILE})`,
        code: 'OPSMAN_API_ERROR',
      },
    ],
  },
);

describe('printable', () => {
  it('escapes controls, bidi and zero-width characters, separators and lone surrogates, and nothing else', () => {
    expect(printable(HOSTILE)).toBe(SHOWN);
    expect(printable('tag \u{e0041} half \ud800 ok é 日本 👍')).toBe('tag \\udb40\\udc41 half \\ud800 ok é 日本 👍');
    expect(printable(printable(HOSTILE))).toBe(SHOWN);
  });
});

describe('renderers show outside text inert', () => {
  it('the terminal plan: target name, reason, who changed it, warning and failure, each on its own line', () => {
    const text = renderPlanText(HOSTILE_PLAN, { style: ANSI_STYLE });
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain(`changed by mallory${SHOWN} (user)`);
    expect(text).toContain(`500 UNEXPECTED_ERROR: ${SHOWN})`);
    expect(text).toContain(`Warning: state note ${SHOWN}`);
    expect(text).toContain(`Project payments${SHOWN} (5e2211c17a3e5a48f5497de3)`);
    // Nothing forged a line: the only `- alertConfig` text is inside the escaped values.
    expect(text.split('\n').filter((l) => l.trimStart().startsWith('- alertConfig'))).toEqual([]);
  });

  it('the apply summary: a failed write whose message quotes Ops Manager', () => {
    const p = HOSTILE_PLAN;
    const text = renderRunSummary(
      report(p, [
        { change: p.changes[0] as Plan['changes'][number], status: 'failed', message: HOSTILE, durationMs: 5 },
      ]),
      { style: ANSI_STYLE },
    );
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain(`FAILED: ${SHOWN}`);
  });

  it('the Markdown comment', () => {
    const text = renderPlanMarkdown(HOSTILE_PLAN);
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain(`changed by mallory${SHOWN} (user)`);
  });

  it('a change key and a live value (from Ops Manager) in a field change: inert in the terminal and Markdown plans', () => {
    const p = plan(
      [
        change({
          key: `adopted${HOSTILE}`,
          action: 'update',
          id: 'i1',
          fields: [{ path: 'notifications[EMAIL].emailAddress', before: `ops${HOSTILE}`, after: 'ops@acme.example' }],
        }),
      ],
      { notes: [`released ${HOSTILE}`] },
    );
    for (const text of [renderPlanText(p, { style: ANSI_STYLE }), renderPlanMarkdown(p)]) {
      expect(text).not.toMatch(UNSAFE);
      expect(text).toContain(`alertConfig "adopted${SHOWN}"`);
    }
    expect(renderPlanMarkdown(p)).toContain('> Note: released a\\\\u001b');
  });

  it('--json: escaped too, and the text parses back to the very same plan', () => {
    const text = renderPlanJson(HOSTILE_PLAN);
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('mallorya\\u001b[2J');
    expect(text).toContain('\\u202egnp.exe\\u200b\\u009b1m\\u2028z');
    expect(JSON.parse(text)).toEqual(canonicalize(HOSTILE_PLAN));
  });
});
