/**
 * Flags of `npm run bench`, parsed and checked with precise messages.
 */

/** What one `npm run bench` does. */
export interface BenchArgs {
  /** Projects of the single case (default 200). */
  projects: number;
  /** Alert configs per project (default 25; the scaling run defaults to 20). */
  alerts: number;
  /** Run 10, 100 and 1,000 projects and draw the cost per project. */
  scaling: boolean;
  /** Tiny sizes for a smoke run (well under a minute). */
  quick: boolean;
  /** Keep the generated files, state and archives here (default: a temp dir, removed at the end). */
  out?: string;
  /** Where results are written (default bench/results). */
  resultsDir?: string;
  /** Client concurrency of the reconciler and the bare baseline (default 8, the client's default). */
  concurrency: number;
  /** Reconcile/bare pairs per read-only phase (plan-noop, archive); the median is reported (default 1). */
  repeat: number;
  /** Measure the Lambda bundles' cold start (default true; `--no-cold-start` skips it). */
  coldStart: boolean;
  /** Write a CPU profile of each reconcile child into this directory (`node --cpu-prof`). */
  cpuProf?: string;
  /**
   * Service time the emulator adds to every API request, in ms (default 0: the official figures). A real Ops Manager
   * answers in milliseconds, not the emulator's tenths of one: this shows what a slower server does to the ratios.
   */
  latencyMs: number;
  help: boolean;
}

/** Defaults of BenchArgs. */
export const DEFAULT_BENCH_ARGS: BenchArgs = {
  projects: 200,
  alerts: 25,
  scaling: false,
  quick: false,
  concurrency: 8,
  repeat: 1,
  coldStart: true,
  latencyMs: 0,
  help: false,
};

/** Usage text. */
export const USAGE = `npm run bench -- [options]
  --projects N      projects of the case (default 200)
  --alerts M        alert configs per project (default 25; 20 with --scaling)
  --scaling         run 10, 100 and 1000 projects and chart the cost per project
  --quick           tiny sizes, a smoke run (well under a minute)
  --concurrency C   client concurrency (default 8)
  --repeat R        run plan-noop, apply-drift (drift injected afresh each time) and archive R times each, report the median pair (default 1)
  --out DIR         keep generated files, state and archives in DIR
  --results DIR     write results there (default bench/results; with --quick, <tmpdir>/opsman-bench-quick-results)
  --cpu-prof DIR    write a CPU profile of each reconcile phase into DIR
  --latency-ms L    the emulator adds L ms to every API request, both sides alike (default 0; a case of its own)
  --no-cold-start   skip the Lambda bundle cold-start measurement
  --help            this text`;

/** Error of a bad flag. */
export class BenchArgsError extends Error {
  override name = 'BenchArgsError';
  readonly code = 'BENCH_ARGS';
}

function whole(flag: string, value: string | undefined, min: number, max: number): number {
  if (value === undefined || !/^\d+$/.test(value))
    throw new BenchArgsError(`${flag} needs a whole number, got ${value ?? 'nothing'}`);
  const n = Number(value);
  if (n < min || n > max) throw new BenchArgsError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

const positive = (flag: string, value: string | undefined, max: number) => whole(flag, value, 1, max);

function text(flag: string, value: string | undefined): string {
  if (value === undefined || value === '' || value.startsWith('--')) throw new BenchArgsError(`${flag} needs a value`);
  return value;
}

/** Parses argv (after `npm run bench --`). */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const args: BenchArgs = { ...DEFAULT_BENCH_ARGS };
  let alertsGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const [name, inline] = flag.includes('=') ? (flag.split(/=(.*)/s, 2) as [string, string]) : [flag, undefined];
    const value = () => inline ?? argv[++i];
    switch (name) {
      case '--projects':
        args.projects = positive(name, value(), 100_000);
        break;
      case '--alerts':
        args.alerts = positive(name, value(), 1_000);
        alertsGiven = true;
        break;
      case '--concurrency':
        args.concurrency = positive(name, value(), 64);
        break;
      case '--repeat':
        args.repeat = positive(name, value(), 25);
        break;
      case '--scaling':
        args.scaling = true;
        break;
      case '--quick':
        args.quick = true;
        break;
      case '--out':
        args.out = text(name, value());
        break;
      case '--results':
        args.resultsDir = text(name, value());
        break;
      case '--cpu-prof':
        args.cpuProf = text(name, value());
        break;
      case '--latency-ms':
        args.latencyMs = whole(name, value(), 0, 10_000);
        break;
      case '--no-cold-start':
        args.coldStart = false;
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      default:
        throw new BenchArgsError(`unknown option ${flag} (see --help)`);
    }
  }
  if (args.scaling && !alertsGiven) args.alerts = 20;
  if (args.quick && args.scaling) throw new BenchArgsError('--quick and --scaling cannot be combined');
  // The scaling chart is one of the official figures: it is never drawn from runs with added latency.
  if (args.latencyMs > 0 && args.scaling) throw new BenchArgsError('--latency-ms and --scaling cannot be combined');
  return args;
}
