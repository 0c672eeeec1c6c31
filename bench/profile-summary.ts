/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, as `npm run bench -- --cpu-prof DIR` writes them): self time by
 * function, and inclusive time of the project's own functions (`lambdas/`, `bench/`), heaviest first, so a hot spot
 * can be named precisely. Positions are `file:line:column` of the code tsx generated (line 0 is common: map the
 * column back with the function name).
 *
 * Usage: `npx tsx bench/profile-summary.ts FILE.cpuprofile [--top N]`
 */
import { readFile } from 'node:fs/promises';

/** The parts of a .cpuprofile this reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** One line of the summary. */
export interface HotSpot {
  name: string;
  ms: number;
  share: number;
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/(node_modules\/)/, '$1')
    .replace(/^.*\/work\/main\//, '');

/** Self time per function and inclusive time per project function, from the samples and their time deltas. */
export function summariseProfile(
  profile: CpuProfile,
  ownCode: RegExp = /^(lambdas|bench|emulator)\//,
): { total: number; self: HotSpot[]; inclusive: HotSpot[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (id: number) => {
    const f = byId.get(id)?.callFrame;
    return f ? `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}:${f.lineNumber}:${f.columnNumber}` : '?';
  };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfById = new Map<number, number>();
  samples.forEach((id, i) => {
    selfById.set(id, (selfById.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
  });
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of selfById) {
    total += ms;
    self.set(name(id), (self.get(name(id)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const key = name(cur);
      const url = shortUrl(byId.get(cur)?.callFrame.url ?? '');
      if (!ownCode.test(url) || seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).map(([n, ms]) => ({ name: n, ms, share: total > 0 ? ms / total : 0 }));
  return { total, self: rank(self), inclusive: rank(inclusive) };
}

async function main(): Promise<void> {
  const [path, flag, n] = process.argv.slice(2);
  if (!path) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--top N]');
  const top = flag === '--top' ? Number(n) : 15;
  const summary = summariseProfile(JSON.parse(await readFile(path, 'utf8')) as CpuProfile);
  const line = (h: HotSpot) =>
    `${h.ms.toFixed(0).padStart(7)} ms ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.name}`;
  process.stdout.write(`total sampled ${summary.total.toFixed(0)} ms\n\nself time:\n`);
  process.stdout.write(`${summary.self.slice(0, top).map(line).join('\n')}\n\ninclusive time, project code:\n`);
  process.stdout.write(`${summary.inclusive.slice(0, top).map(line).join('\n')}\n`);
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
