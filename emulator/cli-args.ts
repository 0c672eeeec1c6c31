/** Parsing of `opsman-gitops emulator` flags, with precise errors. */
import { closest } from '../shared/suggest.ts';

/** The parsed flags. */
export interface EmulatorCliArgs {
  help: boolean;
  host: string;
  port: number;
  seed?: string;
  dataFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  admin: boolean;
  /** Most alert configurations a client may store per project (startEmulator's maxAlertConfigsPerGroup). */
  maxAlertConfigs?: number;
}

/** A flag error: the message is shown with the usage, exit code 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
  readonly code = 'CLI_USAGE';
}

/** The usage text. */
export const USAGE = `Usage: opsman-gitops emulator [options]

Runs the Ops Manager Public API emulator until SIGINT or SIGTERM.

Options:
  --host HOST          interface to listen on (default 127.0.0.1)
  --port PORT          TCP port, 0 for any free port (default 8080)
  --seed FILE          seed file, JSON or YAML (default emulator/seeds/example.yaml)
  --data-file FILE     persist every change to FILE and resume from it on restart (a missing directory
                       created, mode 0700: the file holds the API keys in clear)
  --tls-cert FILE      serve HTTPS with this PEM certificate (needs --tls-key)
  --tls-key FILE       PEM private key of --tls-cert
  --admin              serve the admin API under /__emulator/ (reset, faults, request log)
  --max-alert-configs N
                       most alert configs a client may store per project (default 10000; a POST
                       beyond answers 400 MAX_ALERT_CONFIGS_PER_GROUP_EXCEEDED)
  -h, --help           show this help

Exit codes:
  0  stopped by SIGINT or SIGTERM
  1  cannot start (a seed, data or TLS file that cannot be used, an address in use or not available)
  2  usage error (unknown option, bad value)
`;

const VALUED = new Set(['--host', '--port', '--seed', '--data-file', '--tls-cert', '--tls-key', '--max-alert-configs']);
/** Every flag's name without its dashes, for "did you mean". */
const FLAG_NAMES = [...VALUED, '--admin', '--help'].map((flag) => flag.slice(2));

/** `unknown option "--prot" (did you mean --port?)`, the way the main command says it. */
function unknownOption(arg: string, name: string): CliUsageError {
  const suggestion = closest(name.replace(/^-+/, ''), FLAG_NAMES);
  const hint = suggestion !== undefined ? ` (did you mean --${suggestion}?)` : '';
  return new CliUsageError(`unknown option ${JSON.stringify(arg)}${hint}`);
}

/** Parses argv (after `emulator`); throws CliUsageError. */
export function parseEmulatorArgs(argv: readonly string[]): EmulatorCliArgs {
  const out: EmulatorCliArgs = { help: false, host: '127.0.0.1', port: 8080, admin: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '--help' || name === '-h') {
      out.help = true;
      continue;
    }
    if (name === '--admin') {
      if (eq > 0) throw new CliUsageError('--admin takes no value');
      out.admin = true;
      continue;
    }
    if (!VALUED.has(name)) throw unknownOption(arg, name);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) {
      throw new CliUsageError(`${name} needs a value`);
    }
    if (name === '--port') {
      if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
        throw new CliUsageError(`--port must be 0..65535, got "${value}"`);
      out.port = Number(value);
    } else if (name === '--max-alert-configs') {
      if (!/^\d{1,9}$/.test(value))
        throw new CliUsageError(`--max-alert-configs must be a whole number, got "${value}"`);
      out.maxAlertConfigs = Number(value);
    } else if (name === '--host') out.host = value;
    else if (name === '--seed') out.seed = value;
    else if (name === '--data-file') out.dataFile = value;
    else if (name === '--tls-cert') out.tlsCert = value;
    else out.tlsKey = value;
  }
  if ((out.tlsCert === undefined) !== (out.tlsKey === undefined)) {
    throw new CliUsageError('--tls-cert and --tls-key go together');
  }
  return out;
}
