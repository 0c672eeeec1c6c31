/** `opsman-gitops emulator`: runs the emulator until SIGINT/SIGTERM and prints how to reach it. */
import { createSecureContext } from 'node:tls';
import { describeFsCause } from '../shared/fs-cause.ts';
import { isLoopbackHost } from '../shared/loopback.ts';
import { readRegularFile } from '../shared/regular-file.ts';
import { CliUsageError, parseEmulatorArgs, USAGE } from './cli-args.ts';
import { EmulatorError } from './errors.ts';
import { startEmulator } from './index.ts';
import { buildState } from './store/seed-build.ts';
import { readSeed } from './store/seed-read.ts';

/** A key and a project to show in the sample curl line: the first Global Owner key, else the first key. */
async function sample(
  seed: string | undefined,
): Promise<{ publicKey: string; privateKey: string; groupId?: string } | null> {
  const { doc, source } = await readSeed(seed);
  const state = buildState(doc, source);
  const keys = [...state.apiKeys.values()];
  // A read-only key when the seed has one (as the demo prints): a line copied into a shell history or a chat then
  // cannot write. Else the first Global Owner's, else the first key.
  const withRole = (role: string) => keys.find((k) => k.roles.some((r) => r.roleName === role));
  const key = withRole('GLOBAL_READ_ONLY') ?? withRole('GLOBAL_OWNER') ?? keys[0];
  if (!key) return null;
  return { publicKey: key.publicKey, privateKey: key.privateKey, groupId: [...state.groups.keys()][0] };
}

/**
 * A PEM file named by a flag. One that cannot be read is a start failure (exit 1, like an unreadable seed), not a
 * usage error: the flag was given right, the file is what is wrong, and the usage text would only bury the reason.
 */
async function readPem(file: string, what: string): Promise<string> {
  try {
    return await readRegularFile(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} ${file}: ${describeFsCause(file, err, 'read')}`);
  }
}

/** The certificate and key of `--tls-cert` and `--tls-key`, checked together so that a refusal names both files. */
async function readTlsPair(certFile: string, keyFile: string): Promise<{ cert: string; key: string }> {
  const cert = await readPem(certFile, 'the TLS certificate');
  const key = await readPem(keyFile, 'the TLS key');
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    // OpenSSL's words alone (`error:0480006C:PEM routines::no start line`) name neither file.
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `--tls-cert ${certFile} and --tls-key ${keyFile} are not a usable PEM certificate and key (${reason})`,
    );
  }
  return { cert, key };
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/**
 * The warning of `--admin` on an interface other machines reach (`--host 0.0.0.0` for a container): the admin API has
 * no authentication, so anyone who can connect can reset the emulator and its data file, inject faults and replace
 * an API key's private key.
 */
export function adminExposureWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return `WARNING: opsman-gitops emulator: --admin on --host ${host}: the admin API has no authentication, and anyone who can reach this address can reset the emulator (and its data file), inject faults and change API keys; use it on 127.0.0.1, or on a network only you reach\n`;
}

/** Runs the command; resolves to the exit code (0 after a clean stop, 1 on start failure, 2 on bad flags). */
export async function runEmulatorCommand(argv: string[]): Promise<number> {
  try {
    const args = parseEmulatorArgs(argv);
    if (args.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    const tls = args.tlsCert && args.tlsKey ? await readTlsPair(args.tlsCert, args.tlsKey) : undefined;
    const emulator = await startEmulator({
      host: args.host,
      port: args.port,
      admin: args.admin,
      ...(args.seed ? { seed: args.seed } : {}),
      ...(args.dataFile ? { dataFile: args.dataFile } : {}),
      ...(args.maxAlertConfigs === undefined ? {} : { maxAlertConfigsPerGroup: args.maxAlertConfigs }),
      ...(tls ? { tls } : {}),
    });
    const exposed = args.admin ? adminExposureWarning(args.host) : undefined;
    if (exposed !== undefined) process.stderr.write(exposed);
    const lines = [`Ops Manager emulator listening on ${emulator.url}`];
    if (args.dataFile) lines.push(`  data file: ${args.dataFile}`);
    if (args.admin) lines.push(`  admin API: ${emulator.origin}/__emulator/`);
    const s = await sample(args.seed);
    if (s) {
      const path = s.groupId ? `/groups/${s.groupId}/alertConfigs` : '/alertConfigs/matchers/fieldNames';
      lines.push(
        `  try: curl --digest${tls ? ' -k' : ''} -u ${s.publicKey}:${s.privateKey} '${emulator.url}${path}?pretty=true'`,
      );
    }
    lines.push('  stop with Ctrl-C');
    process.stdout.write(`${lines.join('\n')}\n`);
    const signal = await waitForSignal();
    process.stdout.write(`received ${signal}, stopping\n`);
    await emulator.close();
    return 0;
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`opsman-gitops emulator: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    const message = err instanceof EmulatorError || err instanceof Error ? err.message : String(err);
    // The fix is a flag of this command, so it is named here, not in startEmulator (called by tests and the demo too).
    const hint =
      err instanceof EmulatorError && err.code === 'ADDRESS_IN_USE'
        ? '; choose another --port, or --port 0 for any free port'
        : '';
    process.stderr.write(`opsman-gitops emulator: cannot start: ${message}${hint}\n`);
    return 1;
  }
}
