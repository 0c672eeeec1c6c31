/**
 * The refusals of a command line that parseArgs alone would word badly or not make: credential flags, Terraform's
 * one-dash spelling, other tools' options and commands, one-value options given twice. Each names what was typed
 * (never a value that may be a secret) and what to use instead. Each throws or returns a UsageError.
 */
import { closest } from '../../shared/suggest.ts';
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';
import { UsageError } from './errors.ts';
import { UNIVERSAL_OPTIONS, unusedOptionMessage } from './option-use.ts';

/** Spellings of a credential flag, compared without dashes, underscores or case (`--private_key`, `-privateKey`). */
const CREDENTIAL_FLAGS = new Set(['privatekey', 'publickey', 'apikey']);

/**
 * Refuses `--private-key`/`--public-key` (and their near spellings) before parsing, with the reason (a flag would land
 * in shell history). Names the flag as typed, never its value. Past `--` too: there the word is a positional that no
 * command takes, and the refusal of an unexpected argument quotes it whole (`plan -- --private-key=KEY` printed KEY).
 */
export function refuseCredentialFlags(argv: readonly string[], command: string | undefined): void {
  for (const arg of argv) {
    if (!arg.startsWith('-')) continue;
    const name = arg.split('=')[0] as string;
    if (CREDENTIAL_FLAGS.has(name.replace(/[-_]/g, '').toLowerCase())) {
      throw new UsageError(
        `${name} is not an option: credentials come from the environment only (OPSMAN_PUBLIC_KEY and ` +
          'OPSMAN_PRIVATE_KEY), so a private key never lands in shell history or in the process list',
        command,
      );
    }
  }
}

/**
 * Refuses a long option written with one dash, as Terraform spells them (`-auto-approve`, `-out=plan.json`): parseArgs
 * would read it as a cluster of one-letter flags and blame `-a`, a flag the user never typed.
 */
export function refuseSingleDashLongOptions(
  argv: readonly string[],
  names: readonly string[],
  command: string | undefined,
): void {
  for (const arg of argv) {
    if (arg === '--') return;
    const name = /^-([a-z][a-z-]+)(?:=|$)/.exec(arg)?.[1];
    if (name !== undefined && names.includes(name)) {
      throw new UsageError(`unknown option -${name}: options take two dashes (--${name})`, command);
    }
  }
}

/** Options other tools spell differently (kubectl, argocd, terraform), and what to use here instead. */
const OTHER_TOOLS_OPTIONS: Readonly<Record<string, string>> = {
  o: '--json or --markdown',
  output: '--json or --markdown',
  y: '--auto-approve',
  yes: '--auto-approve',
  'dry-run': 'the plan command (it writes nothing)',
  target: '--project ID',
};

/**
 * The "did you mean" of an unknown option: first among the options `command` takes; else the closest option of any
 * command, with why this command does not take it. Suggesting that one alone (`plan --auto-aprove`: did you mean
 * --auto-approve?) sent the user to a second refusal (`plan does not take --auto-approve`) one run later.
 */
function suggestionHint(name: string, names: readonly string[], command: string | undefined): string {
  const known = command !== undefined && (COMMANDS as readonly string[]).includes(command);
  const own = known ? closest(name, [...COMMAND_INFO[command as CommandName].uses, ...UNIVERSAL_OPTIONS]) : undefined;
  if (own !== undefined) return ` (did you mean --${own}?)`;
  const other = closest(name, names);
  if (other === undefined) return '';
  return known
    ? ` (did you mean --${other}? ${unusedOptionMessage(command as CommandName, other)})`
    : ` (did you mean --${other}?)`;
}

/** Turns parseArgs' errors into a clear usage message with a suggestion among `names` (the long option names). */
export function usageFromParseError(error: unknown, names: readonly string[], command: string | undefined): UsageError {
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1] ?? '';
    const name = flag.replace(/^-+/, '');
    const foreign = OTHER_TOOLS_OPTIONS[name];
    const hint = foreign !== undefined ? ` (use ${foreign})` : suggestionHint(name.toLowerCase(), names, command);
    return new UsageError(`unknown option ${flag}${hint}`, command);
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(--[a-z-]+)/.exec(message)?.[1] ?? 'an option';
    if (message.includes('argument missing')) return new UsageError(`${flag} needs a value`, command);
    if (message.includes('ambiguous')) {
      return new UsageError(`${flag} needs a value; to pass one starting with '-', write ${flag}=-VALUE`, command);
    }
    if (message.includes('does not take an argument')) return new UsageError(`${flag} takes no value`, command);
    return new UsageError(message.split('\n')[0] ?? message, command);
  }
  return new UsageError(message, command);
}

/** A value as an error quotes it; one with an `@` may hold credentials (a URL's user:password) and is only measured. */
export function shownValue(value: string): string {
  return value.includes('@') ? `a value of ${value.length} characters` : `'${value}'`;
}

/**
 * Refuses an option that takes one value given twice with different values (`--mode observe ... --mode apply`): one
 * of them would be ignored in silence, and a cap a wrapper script set would be lifted by a later flag. The same value
 * twice, a repeated switch, and the repeatable --project are accepted.
 */
export function refuseConflictingRepeats(
  tokens: readonly { kind: string; name?: string; value?: string | undefined }[],
  command: string | undefined,
): void {
  const seen = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined || token.value === undefined) continue;
    if (token.name === 'project') continue;
    const before = seen.get(token.name);
    if (before !== undefined && before !== token.value) {
      throw new UsageError(
        `--${token.name} is given twice, with different values (${shownValue(before)} and ${shownValue(token.value)}): give it once`,
        command,
      );
    }
    seen.set(token.name, token.value);
  }
}

/** Commands of terraform, kubectl and argocd that have another name here, or none (what to do instead). */
const OTHER_TOOLS_COMMANDS: Readonly<Record<string, string>> = {
  version: 'use --version',
  diff: "use 'plan' (or 'observe' for drift only)",
  sync: "use 'apply'",
  drift: "use 'observe'",
  lint: "use 'validate'",
  destroy: "there is none: delete the objects from the desired state and run 'apply'",
  'force-unlock': "use 'unlock RUN_ID'",
};

/** The refusal of an unknown command word, with a did-you-mean or what other tools' users mean by it. */
export function unknownCommandError(word: string): UsageError {
  const other = OTHER_TOOLS_COMMANDS[word];
  // Case aside, as cobra's suggestions do: `PLAN` is one step from `plan` for the reader, four for the edit distance.
  const suggestion = closest(word.toLowerCase(), COMMANDS);
  const hint = other !== undefined ? ` (${other})` : suggestion !== undefined ? ` (did you mean '${suggestion}'?)` : '';
  return new UsageError(`unknown command '${word}'${hint}`);
}
