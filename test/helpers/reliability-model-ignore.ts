/**
 * The model's view of `ignoreFields` and change windows: which members of a pool entry may be ignored, their values in
 * a config, a config's signature with its ignored members taken from git (what "managed members equal git" compares),
 * and the Settings `changeWindows` a window step writes (absolute deny windows, far around or far before the real
 * clock the runs use).
 */
import type { SpecBody } from '../../bench/alert-catalogue.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';
import { signature } from './reliability-inventory.ts';

/** The members the model ignores (`threshold` is left out: no pool alert has one, and validate refuses it there). */
export const IGNORABLE = ['enabled', 'matchers', 'metricThreshold'] as const;
/** One of them. */
export type Member = (typeof IGNORABLE)[number];

/** Whether `member` may be ignored on `body` (a threshold member the event type never has is refused). */
export function ignorableOn(body: SpecBody, member: Member): boolean {
  return member !== 'metricThreshold' || body.metricThreshold !== undefined;
}

/** The value of `member` in a live config or a body, for comparisons (absent matchers read as none). */
export function memberValue(config: AlertConfig | SpecBody, member: Member): unknown {
  if (member === 'enabled') return config.enabled === true;
  if (member === 'matchers') return config.matchers ?? [];
  return config.metricThreshold ?? null;
}

/** The signature of `config` with each `ignored` member taken from `desired`: equal to git's when the rest is. */
export function managedSignature(config: AlertConfig, desired: SpecBody, ignored: ReadonlySet<Member>): string {
  const out = { ...config } as AlertConfig;
  for (const m of ignored) {
    if (m === 'enabled') out.enabled = desired.enabled === true;
    else if (m === 'matchers') out.matchers = (desired.matchers ?? []) as AlertConfig['matchers'];
    else out.metricThreshold = desired.metricThreshold as AlertConfig['metricThreshold'];
  }
  return signature(out);
}

/**
 * A human's new value of `member` of `live`: `enabled` flipped, the matchers' value turned (or one added), the metric
 * threshold raised by 7. Always differs from the live value.
 */
export function tunedValue(live: AlertConfig, member: Member): unknown {
  if (member === 'enabled') return live.enabled !== true;
  if (member === 'matchers') {
    const first = live.matchers?.[0];
    if (first === undefined) return [{ fieldName: 'TYPE_NAME', operator: 'EQUALS', value: 'SECONDARY' }];
    return [
      { ...first, value: first.value === 'PRIMARY' ? 'SECONDARY' : 'PRIMARY' },
      ...(live.matchers ?? []).slice(1),
    ];
  }
  const mt = live.metricThreshold as { threshold?: number } | undefined;
  return { ...mt, threshold: Number(mt?.threshold ?? 0) + 7 };
}

/** A change-window step's state: a deny window open now, one that closed long ago, or none. */
export type WindowState = 'open' | 'past' | 'none';

/** The Settings lines of `changeWindows` for `state` (a deny window; `projectId`: only that project, else every target). */
export function windowLines(state: WindowState, projectId: string | null): string[] {
  if (state === 'none') return [];
  // Absolute: the runs use the real clock, so a window from 2000 to 2100 is open and one in 2001 is closed.
  const [from, until] =
    state === 'open'
      ? ['2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z']
      : ['2001-01-01T00:00:00Z', '2001-01-02T00:00:00Z'];
  return [
    '  changeWindows:',
    '    - name: model-freeze',
    '      kind: deny',
    `      from: ${from}`,
    `      until: ${until}`,
    ...(projectId === null ? [] : [`      projects: [${projectId}]`]),
  ];
}
