/**
 * The options, parsed with node:util parseArgs in strict mode and validated into a typed value. A command refuses the
 * options it does not use (option-use.ts). Credentials never come from flags.
 */

import { parseArgs } from 'node:util';
import { closest } from '../../shared/suggest.ts';
import { MODES, type Mode } from '../core/model.ts';
import { printable } from '../core/printable.ts';
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';
import { UsageError } from './errors.ts';
import { refuseUnusedOptions } from './option-use.ts';
import { baseUrl, leaseWait, nonNegativeInteger, oneOf, requestTimeout } from './option-values.ts';
import {
  refuseConflictingRepeats,
  refuseCredentialFlags,
  refuseSingleDashLongOptions,
  shownValue,
  unknownCommandError,
  usageFromParseError,
} from './parse-refusals.ts';

/** Defaults of the options that have one. */
export const DEFAULT_OPTIONS = {
  desired: 'desired-state/',
  stateDir: '.opsman-gitops/',
  /** Seconds to wait for a held lease (0: fail fast). */
  leaseWaitSeconds: 0,
} as const;

/** The validated options of one invocation. */
export interface CliOptions {
  /** Desired-state directory. */
  desired: string;
  /** Ops Manager base URL (`…/api/public/v1.0`): --base-url, else OPSMAN_BASE_URL. */
  baseUrl?: string;
  /** PEM file of a private CA. */
  caFile?: string;
  /** Disable TLS verification (warns on every run). */
  insecureSkipVerify: boolean;
  /** JSON secrets file; when absent secrets come from OPSMAN_SECRET_* variables. */
  secretsFile?: string;
  stateDir: string;
  /** Default `<stateDir>/archive`. */
  archiveDir: string;
  /** Only these project ids (repeatable --project). */
  projects: string[];
  /** export: the projects' organization id (--org), lower-cased; needed for alert configs that notify a TEAM. */
  orgId?: string;
  mode?: Mode;
  autoApprove: boolean;
  json: boolean;
  markdown: boolean;
  /** --no-color, NO_COLOR or FORCE_COLOR=0/false: no colours even on a terminal. */
  noColor: boolean;
  /** FORCE_COLOR set (and not 0/false) without --no-color: colours even where stdout is not a terminal (a CI log). */
  forceColor: boolean;
  detailedExitcode: boolean;
  /** plan: save the plan JSON here. */
  out?: string;
  /** apply: apply this saved plan. */
  planFile?: string;
  maxDeletes?: number;
  allowEmpty: boolean;
  /** apply: write targets a change window holds (Argo CD's manual-sync override). */
  ignoreWindows: boolean;
  leaseWaitSeconds: number;
  /** Seconds one Ops Manager request may take, retries included; absent: the client's default (120 s). */
  requestTimeoutSeconds?: number;
  help: boolean;
  version: boolean;
}

/** One parsed invocation: the command (absent for a bare `--help`/`--version`) and its options. */
export interface Invocation {
  command?: CommandName;
  /** Further positionals: only `help COMMAND` takes one. */
  args: string[];
  options: CliOptions;
}

const OPTION_SPEC = {
  desired: { type: 'string' },
  'base-url': { type: 'string' },
  'ca-file': { type: 'string' },
  'insecure-skip-verify': { type: 'boolean' },
  'secrets-file': { type: 'string' },
  'state-dir': { type: 'string' },
  'archive-dir': { type: 'string' },
  project: { type: 'string', multiple: true },
  org: { type: 'string' },
  mode: { type: 'string' },
  'auto-approve': { type: 'boolean' },
  json: { type: 'boolean' },
  markdown: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  'detailed-exitcode': { type: 'boolean' },
  out: { type: 'string' },
  plan: { type: 'string' },
  'max-deletes': { type: 'string' },
  'allow-empty': { type: 'boolean' },
  'ignore-windows': { type: 'boolean' },
  'lease-wait': { type: 'string' },
  'request-timeout': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/** The options of a `--help` or `--version` invocation: only those two are read, the rest are the defaults. */
const PRINT_ONLY: Omit<CliOptions, 'help' | 'version'> = {
  desired: DEFAULT_OPTIONS.desired,
  insecureSkipVerify: false,
  stateDir: DEFAULT_OPTIONS.stateDir,
  archiveDir: `${DEFAULT_OPTIONS.stateDir}archive`,
  projects: [],
  autoApprove: false,
  json: false,
  markdown: false,
  noColor: false,
  forceColor: false,
  detailedExitcode: false,
  allowEmpty: false,
  ignoreWindows: false,
  leaseWaitSeconds: DEFAULT_OPTIONS.leaseWaitSeconds,
};

/**
 * Colours from --no-color, FORCE_COLOR and NO_COLOR. The flag always wins. FORCE_COLOR follows force-color.org and
 * Node's own util: set and not empty, it turns colours on even where stdout is not a terminal (CI services set it for
 * their logs) and wins over NO_COLOR; `0` and `false` turn them off (as chalk and Node read them). An empty variable,
 * either one, is an unset one (no-color.org).
 */
export function colourChoice(
  noColorFlag: boolean,
  env: Record<string, string | undefined>,
): { noColor: boolean; forceColor: boolean } {
  const force = env.FORCE_COLOR ?? '';
  const forcedOff = force === '0' || force.toLowerCase() === 'false';
  const forcedOn = force !== '' && !forcedOff;
  const noColorEnv = (env.NO_COLOR ?? '') !== '';
  return {
    noColor: noColorFlag || forcedOff || (noColorEnv && !forcedOn),
    forceColor: !noColorFlag && forcedOn,
  };
}

/** Long names of every option (for help and "did you mean"). */
export const OPTION_NAMES: readonly string[] = Object.keys(OPTION_SPEC);

const PROJECT_ID = /^[0-9a-f]{24}$/i;
/** A Project's metadata.name, as the desired-state schema allows it (desired/schema.ts). */
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Options that take a value: the word after one (`--desired DIR`) is its value, never the command. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(
  Object.entries(OPTION_SPEC)
    .filter(([, spec]) => spec.type === 'string')
    .map(([name]) => `--${name}`),
);

/**
 * The command word of argv as parseArgs will read it: the first word that is neither an option nor the value of one
 * (`--desired ds validate`: validate, not ds), or the first word after `--`. Read before parsing, so that an error in
 * the parse still names the right command's help, and a `--json` failure goes out as JSON.
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return argv[i + 1];
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-') || arg === '-') return arg;
  }
  return undefined;
}

/**
 * True when the boolean flag `name` (`--json`, `--markdown`, also written `--json=...`) is given before any `--`. Read
 * from argv before parsing, like commandWord, so that a usage error's failure goes out in the form asked for.
 */
export function flagGiven(argv: readonly string[], name: string): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  return words.some((word) => word === name || word.startsWith(`${name}=`));
}

/** Parses and validates argv (without node and script). Throws UsageError. */
export function parseInvocation(argv: readonly string[], env: Record<string, string | undefined>): Invocation {
  // Only a command this tool has may be named in "Run 'opsman-gitops X --help'": `plna --bogus` or `--private-key x
  // plan` must not send the user to the help of a command that does not exist.
  const word = commandWord(argv);
  const firstWord = word !== undefined && (COMMANDS as readonly string[]).includes(word) ? word : undefined;
  refuseCredentialFlags(argv, firstWord);
  refuseSingleDashLongOptions(argv, OPTION_NAMES, firstWord);
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTION_SPEC; allowPositionals: true; strict: true; tokens: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTION_SPEC, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    throw usageFromParseError(error, OPTION_NAMES, firstWord);
  }
  const [first, ...args] = parsed.positionals;
  let command: CommandName | undefined;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) throw unknownCommandError(first);
    command = first as CommandName;
  }
  if (command === 'help') {
    if (args.length > 1 || (args[0] !== undefined && !(COMMANDS as readonly string[]).includes(args[0]))) {
      const suggestion = args.length === 1 ? closest((args[0] as string).toLowerCase(), COMMANDS) : undefined;
      const hint = suggestion !== undefined ? ` (did you mean '${suggestion}'?)` : '';
      throw new UsageError(`help takes one command name, found '${args.join(' ')}'${hint}`, 'help');
    }
  } else if (command === 'unlock') {
    const runId = args[0];
    const wellFormed = args.length === 1 && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(runId ?? '');
    if (!wellFormed && !(parsed.values.help === true && args.length === 0)) {
      throw new UsageError(
        args.length === 0
          ? 'unlock needs the run id the lock names (e.g. 20261121T184351Z-867bac; a failed apply and `cat <state-dir>/lease.json` show it)'
          : `unlock takes the run id the lock names (e.g. 20261121T184351Z-867bac), found ${shownValue(args.join(' '))}`,
        'unlock',
      );
    }
  } else if (args.length > 0) {
    // Measured, not quoted, when it may hold credentials (`plan -- https://user:pass@host`): errors reach CI logs.
    throw new UsageError(
      `unexpected argument ${shownValue(args[0] ?? '')} (${command ?? 'the command'} takes options only)`,
      command,
    );
  }
  const v = parsed.values;
  // Help and version print and exit: nothing is run, so nothing given with them is checked or ignored in silence. A
  // usage error says "Run '... --help' for usage", so a stale OPSMAN_BASE_URL or the bad value must not refuse that.
  if (v.help === true || v.version === true) {
    return { command, args, options: { ...PRINT_ONLY, help: v.help === true, version: v.version === true } };
  }
  refuseConflictingRepeats(parsed.tokens, command);
  if (command !== undefined && command !== 'emulator') refuseUnusedOptions(command, Object.keys(v));
  const mode = oneOf('--mode', v.mode, MODES, command);
  for (const id of v.project ?? []) {
    if (PROJECT_ID.test(id)) continue;
    // A project's name (payments-prod) is what people remember: a run resolves it against the desired state. Export
    // reads projects git may not have yet, so it needs their ids.
    if (command !== 'export' && PROJECT_NAME.test(id)) continue;
    // Hex, only of the wrong length, is a truncated paste: no hint about names.
    const hint = /^[0-9a-f]*$/i.test(id)
      ? ''
      : ' (export reads projects that may not be in git yet: give the id Ops Manager shows, not a name)';
    throw new UsageError(
      command === 'export'
        ? `--project expects a 24-hex project id (e.g. 5e2211c17a3e5a48f5497de3), found '${printable(id)}'${hint}`
        : `--project expects a 24-hex project id (e.g. 5e2211c17a3e5a48f5497de3) or a project's metadata.name, found '${printable(id)}'`,
      command,
    );
  }
  if (v.org !== undefined && !PROJECT_ID.test(v.org)) {
    throw new UsageError(
      `--org expects a 24-hex organization id (e.g. 5e2211c17a3e5a48f5497de0), found '${v.org}'`,
      command,
    );
  }
  if (v.json === true && v.markdown === true) {
    throw new UsageError('--json and --markdown exclude each other: pick one output format', command);
  }
  for (const [flag, value] of [
    ['--desired', v.desired],
    ['--state-dir', v['state-dir']],
    ['--archive-dir', v['archive-dir']],
    ['--out', v.out],
    ['--plan', v.plan],
    ['--secrets-file', v['secrets-file']],
    ['--ca-file', v['ca-file']],
  ] as const) {
    if (value === '') throw new UsageError(`${flag} needs a non-empty path`, command);
    // `-` means stdin or stdout to most tools; taken as a path it made a file named `-` (`plan --out -`) that the
    // next command read back as a file, where the user expected a pipe.
    if (value === '-') {
      throw new UsageError(
        `${flag} takes a path, and '-' (stdin or stdout) is not one here: name a file or directory (./- for a file named -)`,
        command,
      );
    }
  }
  const stateDir = v['state-dir'] ?? DEFAULT_OPTIONS.stateDir;
  const talksToOpsManager = command !== undefined && COMMAND_INFO[command].uses.includes('base-url');
  const options: CliOptions = {
    desired: v.desired ?? DEFAULT_OPTIONS.desired,
    // Only a command that talks to Ops Manager reads OPSMAN_BASE_URL: a stale one must not break `validate`.
    baseUrl: !talksToOpsManager
      ? undefined
      : v['base-url'] !== undefined
        ? baseUrl(v['base-url'], command, '--base-url')
        : baseUrl(env.OPSMAN_BASE_URL, command, 'OPSMAN_BASE_URL'),
    caFile: v['ca-file'],
    insecureSkipVerify: v['insecure-skip-verify'] === true,
    secretsFile: v['secrets-file'],
    stateDir,
    archiveDir: v['archive-dir'] ?? `${stateDir.replace(/\/+$/, '')}/archive`,
    // Ids lower-cased (Ops Manager's form); names as written, resolved by the run against the desired state.
    projects: [...new Set((v.project ?? []).map((p) => (PROJECT_ID.test(p) ? p.toLowerCase() : p)))],
    ...(v.org === undefined ? {} : { orgId: v.org.toLowerCase() }),
    mode,
    autoApprove: v['auto-approve'] === true,
    json: v.json === true,
    markdown: v.markdown === true,
    ...colourChoice(v['no-color'] === true, env),
    detailedExitcode: v['detailed-exitcode'] === true,
    out: v.out,
    planFile: v.plan,
    maxDeletes: nonNegativeInteger('--max-deletes', v['max-deletes'], command),
    allowEmpty: v['allow-empty'] === true,
    ignoreWindows: v['ignore-windows'] === true,
    leaseWaitSeconds:
      v['lease-wait'] === undefined ? DEFAULT_OPTIONS.leaseWaitSeconds : leaseWait(v['lease-wait'], command),
    requestTimeoutSeconds: requestTimeout(v['request-timeout'], command),
    help: false,
    version: false,
  };
  return { command, args, options };
}

/** Usage line of a command, for error messages. */
export function usageOf(command: CommandName): string {
  return COMMAND_INFO[command].usage;
}
