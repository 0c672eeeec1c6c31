/**
 * Bench-only launcher of the emulator in its own process: `node --import tsx bench/emulator-launcher.ts --port 0
 * --seed FILE [--data-file FILE] [--nonce-ttl-ms N]`, admin API on. Prints `emulator listening on <base URL>` and
 * stops on SIGTERM/SIGINT. Kept apart from the product's `emulator` command so the benchmark only depends on the
 * emulator's in-process contract.
 */
import { startEmulator } from '../emulator/index.ts';

/** Flags of the launcher. */
export interface LauncherArgs {
  port: number;
  seed: string;
  dataFile?: string;
  nonceTtlMs?: number;
}

/** Parses the launcher's flags; throws with a precise message. */
export function parseLauncherArgs(argv: readonly string[]): LauncherArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    if (flag === '--admin') continue;
    const value = argv[i + 1];
    if (!['--port', '--seed', '--data-file', '--nonce-ttl-ms', '--host'].includes(flag))
      throw new Error(`unknown option ${flag}`);
    if (value === undefined) throw new Error(`${flag} needs a value`);
    values.set(flag, value);
    i++;
  }
  const seed = values.get('--seed');
  if (!seed) throw new Error('--seed FILE is required');
  const port = Number(values.get('--port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port must be 0..65535');
  const args: LauncherArgs = { port, seed };
  const dataFile = values.get('--data-file');
  if (dataFile) args.dataFile = dataFile;
  const ttl = values.get('--nonce-ttl-ms');
  if (ttl) args.nonceTtlMs = Number(ttl);
  return args;
}

async function main(): Promise<void> {
  const args = parseLauncherArgs(process.argv.slice(2));
  const emulator = await startEmulator({
    port: args.port,
    host: '127.0.0.1',
    seed: args.seed,
    admin: true,
    ...(args.dataFile ? { dataFile: args.dataFile } : {}),
    ...(args.nonceTtlMs ? { nonceTtlMs: args.nonceTtlMs } : {}),
  });
  process.stdout.write(`emulator listening on ${emulator.url}\n`);
  const stop = () => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`emulator launcher: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
