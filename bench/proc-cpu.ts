/**
 * CPU time of another process, read from Linux's /proc: the benchmark records how much CPU the emulator spent while
 * the reconciler ran and while the bare baseline ran, which tells whether a phase waited on the emulator or on itself.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on every Linux the benchmark runs on). */
export const USER_HZ = 100;

/**
 * User plus system CPU time of process `pid` in ms, or undefined when it cannot be read (not Linux, gone, or a stat
 * line in an unexpected shape).
 */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 11 and 12 after the name (0-based, starting at field 3).
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / USER_HZ;
}

/** Starts measuring `pid`; `stop()` gives the CPU ms it used since, or undefined when either reading failed. */
export function cpuMeter(pid: number): { stop(): number | undefined } {
  const start = processCpuMs(pid);
  return {
    stop() {
      const end = processCpuMs(pid);
      return start === undefined || end === undefined ? undefined : Math.max(0, end - start);
    },
  };
}
