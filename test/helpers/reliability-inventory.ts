/**
 * "Nothing lost, nothing duplicated": compares the alert configs live in each project with what should be there (the
 * desired ones plus the seed's unmanaged defaults), as multisets of non-secret signatures.
 */
import type { World } from '../../bench/world.ts';
import type { AlertConfig } from '../../lambdas/opsman/types.ts';

/** The fields a signature reads: common to desired specs, requests and live configs. */
interface Signed {
  eventTypeName: string;
  enabled?: boolean;
  matchers?: readonly { fieldName: string; operator: string; value: string }[];
  metricThreshold?: { metricName: string; operator: string; threshold: number };
  threshold?: { operator: string; threshold: number };
  notifications: readonly object[];
}

/** The non-secret signature of an alert config: what identifies it in a project of the bench world. */
export function signature(config: Signed): string {
  const matchers = [...(config.matchers ?? [])].map((m) => `${m.fieldName} ${m.operator} ${m.value}`).sort();
  const mt = config.metricThreshold;
  const t = config.threshold;
  const notifications = config.notifications
    .map((o) => {
      const n = o as { typeName?: unknown; delayMin?: unknown; intervalMin?: unknown };
      return `${String(n.typeName)}:${Number(n.delayMin ?? 0)}:${String(n.intervalMin ?? '-')}`;
    })
    .sort();
  return [
    config.eventTypeName,
    config.enabled === true ? 'on' : 'off',
    matchers.join('&'),
    mt ? `${mt.metricName} ${mt.operator} ${mt.threshold}` : '',
    t ? `${t.operator} ${t.threshold}` : '',
    notifications.join('+'),
  ].join('|');
}

/** Differences of one project: signatures missing from live, and signatures live holds too often. */
export interface ProjectDiff {
  project: string;
  missing: string[];
  extra: string[];
}

function count(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of list) m.set(s, (m.get(s) ?? 0) + 1);
  return m;
}

/** What each project should hold: desired alerts (with `enabledOverride` applied) plus the seed defaults. */
export function expectedSignatures(world: World): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of world.projects) {
    out.set(p.id, [...p.alerts.map((a) => signature(a.body)), ...p.defaults.map((d) => signature(d.body))]);
  }
  return out;
}

/** Compares live configs per project with the expected signatures; an empty list means converged exactly. */
export function compareInventory(expected: Map<string, string[]>, live: Map<string, AlertConfig[]>): ProjectDiff[] {
  const diffs: ProjectDiff[] = [];
  for (const [project, want] of expected) {
    const have = count((live.get(project) ?? []).map((c) => signature(c)));
    const need = count(want);
    const missing: string[] = [];
    const extra: string[] = [];
    for (const [sig, n] of need) for (let i = have.get(sig) ?? 0; i < n; i++) missing.push(sig);
    for (const [sig, n] of have) for (let i = need.get(sig) ?? 0; i < n; i++) extra.push(sig);
    if (missing.length > 0 || extra.length > 0) diffs.push({ project, missing, extra });
  }
  return diffs;
}
