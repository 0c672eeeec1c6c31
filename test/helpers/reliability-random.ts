/**
 * Random worlds for the property tests: 1-3 projects of the bench world with 0-10 random alert configs each (random
 * kinds, some disabled), and per alert what the live side holds before the tool runs.
 */
import fc from 'fast-check';
import { type AlertSpec, alertSpecsFor } from '../../bench/alert-catalogue.ts';
import { EmulatorAdmin } from '../../bench/emulator-admin.ts';
import { renderSeed } from '../../bench/seed.ts';
import { buildWorld, type World } from '../../bench/world.ts';
import { startEmulator } from '../../emulator/index.ts';

/** The largest world the random ones are cut from (its seed serves them all). */
export const BASE = buildWorld({ projects: 3, alerts: 1 });

/** An in-process emulator seeded with BASE, with its admin API (each property case resets it). */
export interface BaseEmulator {
  url: string;
  admin: EmulatorAdmin;
  close(): Promise<void>;
}

/** Starts the emulator the property tests share, on a free loopback port. */
export async function startBaseEmulator(): Promise<BaseEmulator> {
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', seed: renderSeed(BASE), admin: true });
  return {
    url: emulator.url,
    admin: new EmulatorAdmin(new URL(emulator.url).origin),
    close: () => emulator.close(),
  };
}

/** What one project looks like in a generated case. */
export interface ProjectCase {
  count: number;
  offset: number;
  disabled: boolean[];
  /** Per desired alert: 0 nothing live, 1 an unowned exact copy (adopted), 2 an unowned near-miss (left alone). */
  live: number[];
}

/** One random project. */
export const projectCase: fc.Arbitrary<ProjectCase> = fc.integer({ min: 0, max: 10 }).chain((count) =>
  fc.record({
    count: fc.constant(count),
    offset: fc.integer({ min: 0, max: 7 }),
    disabled: fc.array(fc.boolean(), { minLength: count, maxLength: count }),
    live: fc.array(fc.constantFrom(0, 0, 1, 2), { minLength: count, maxLength: count }),
  }),
);

/** The world of random project cases, and the near-miss bodies to create unowned in each project. */
export function worldOf(cases: ProjectCase[]): { world: World; nearMisses: Map<string, AlertSpec['body'][]> } {
  const secrets: World['secrets'] = {};
  const nearMisses = new Map<string, AlertSpec['body'][]>();
  const projects = BASE.projects.slice(0, cases.length).map((p, i) => {
    const c = cases[i] as ProjectCase;
    const org = BASE.orgs.find((o) => o.id === p.orgId);
    const alerts = alertSpecsFor({
      projectIndex: c.offset,
      projectName: p.name,
      count: c.count,
      teamId: org?.teamId ?? '',
    }).map(
      // Inline every alert (no AlertTemplate document in these worlds).
      (a, k) => ({ ...a, template: false, body: c.disabled[k] ? { ...a.body, enabled: false } : a.body }),
    );
    for (const a of alerts) {
      for (const s of a.secrets) {
        const bucket = secrets[s.secretId] ?? {};
        bucket[s.jsonKey] = s.value;
        secrets[s.secretId] = bucket;
      }
    }
    nearMisses.set(
      p.id,
      alerts
        .filter((_, k) => c.live[k] === 2)
        .map((a) => ({
          ...a.body,
          notifications: a.body.notifications.map((n, j) => (j === 0 ? { ...n, delayMin: 100 + k0(n) } : n)),
        })),
    );
    return { ...p, alerts };
  });
  return { world: { ...BASE, projects, templateKeys: [], secrets }, nearMisses };
}

const k0 = (n: Record<string, unknown>) => Number(n.delayMin ?? 0);
