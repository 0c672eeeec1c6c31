/**
 * The `opsman-gitops` command: parses the invocation, dispatches to a command, and maps every error to a message and
 * an exit code in one place (0 ok, 1 error, 2 usage). bin/main.ts, the composition root, calls runCli.
 */
import { LeaseHeldError, LeaseWaitInterruptedError } from '../core/errors.ts';
import { printable, printableLines } from '../core/printable.ts';
import { runApply } from './commands/apply.ts';
import { runArchive } from './commands/archive.ts';
import { runDemo } from './commands/demo.ts';
import { runExport } from './commands/export.ts';
import { runPlan } from './commands/plan.ts';
import { runSchema } from './commands/schema.ts';
import { runUnlock } from './commands/unlock.ts';
import { runValidate } from './commands/validate.ts';
import { type CommandContext, commandContext, type StartEmulator } from './context.ts';
import { CliError, EXIT, UsageError } from './errors.ts';
import { endAsHangup } from './hangup.ts';
import { commandHelp, topLevelHelp } from './help.ts';
import { type CliIo, processIo } from './io.ts';
import { failureDocument, renderFailureJson, trackWrites, wantsJson } from './json-failure.ts';
import { renderFailureMarkdown, wantsMarkdown } from './markdown-failure.ts';
import { commandWord, parseInvocation } from './options.ts';
import { currentToolVersion } from './tool-version.ts';

/** What the composition root injects. */
export interface CliDependencies {
  /** Starts the Ops Manager emulator in-process (injected so lambdas/ never imports emulator/). */
  startEmulator: StartEmulator;
  /** The process window; defaults to the real process (tests pass a recorder). */
  io?: CliIo;
}

/** Replaces any occurrence of the private key (belt and braces: no message should ever hold it). */
export function redactCredentials(text: string, env: Record<string, string | undefined>): string {
  let out = text;
  for (const name of ['OPSMAN_PRIVATE_KEY', 'OPSMAN_FINGERPRINT_KEY']) {
    const value = env[name];
    if (value !== undefined && value.length >= 4) out = out.split(value).join('(redacted)');
  }
  return out;
}

/**
 * The message with the error's code after it, once: a message that already ends with the system's code
 * (`... is a file, not a directory (ENOTDIR)`) gets one parenthesis naming both, not two in a row.
 */
export function withCode(message: string, code: unknown): string {
  if (typeof code !== 'string' || message.includes(code)) return message;
  const system = /\s\((E[A-Z0-9]+)\)$/.exec(message);
  if (system === null) return `${message} (${code})`;
  return `${message.slice(0, system.index)} (${code}, ${system[1]})`;
}

/**
 * Prints an error and returns its exit code. Never prints a stack trace. Printable: a message quotes what it was given
 * (an argument, a path, Ops Manager's answer), and an escape sequence or a bidi character in it must not reach the
 * terminal as one.
 */
export function reportError(io: CliIo, error: unknown): number {
  const say = (text: string) => io.stderr.write(redactCredentials(printableLines(text), io.env));
  if (error instanceof UsageError) {
    // One line by construction: a newline in it comes from a quoted argument, and must not start a line of its own.
    say(`error: ${printable(error.message)}\n`);
    say(`Run 'opsman-gitops ${error.command !== undefined ? `${error.command} ` : ''}--help' for usage.\n`);
    return error.exitCode;
  }
  if (error instanceof CliError) {
    say(`error: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    say(`error: ${withCode(error.message, code)}\n`);
    // An unreadable lease's message names its own way out (its run id may be unknown). Said too when Ctrl-C stopped
    // the wait: the holder may be a run killed long ago, and this is the way past it.
    if (
      (error instanceof LeaseHeldError || error instanceof LeaseWaitInterruptedError) &&
      error.holder.unreadable === undefined
    ) {
      say(
        `If run ${error.holder.runId} is no longer running (killed before it could release its lock), remove the lock with: opsman-gitops unlock ${error.holder.runId} (same --state-dir)\n`,
      );
    }
    // RunInterruptedError (a plan, observe or apply stopped while planning), LeaseWaitInterruptedError.
    return code === 'INTERRUPTED' ? EXIT.interrupted : EXIT.error;
  }
  say(`error: ${String(error)}\n`);
  return EXIT.error;
}

async function dispatch(ctx: CommandContext, command: string, args: readonly string[]): Promise<number> {
  switch (command) {
    case 'unlock':
      return runUnlock(ctx, args[0] as string);
    case 'validate':
      return runValidate(ctx);
    case 'schema':
      return runSchema(ctx);
    case 'plan':
      return runPlan(ctx, 'plan');
    case 'observe':
      return runPlan(ctx, 'observe');
    case 'apply':
      return runApply(ctx);
    case 'archive':
      return runArchive(ctx);
    case 'demo':
      return runDemo(ctx);
    case 'export':
      return runExport(ctx);
    case 'emulator':
      throw new UsageError('put `emulator` first, before any option: `opsman-gitops emulator [options]`', 'emulator');
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/** Runs the `opsman-gitops` command; resolves to the exit code. */
export async function runCli(argv: string[], deps: CliDependencies): Promise<number> {
  const processWindow = deps.io ?? processIo();
  const stdout = trackWrites(processWindow.stdout);
  const io: CliIo = { ...processWindow, stdout: stdout.sink };
  try {
    const { command, args, options } = parseInvocation(argv, io.env);
    if (options.version) {
      // The sources digest too: a saved plan applies only with the build that made it, and its refusal names both.
      const { version, sources } = await currentToolVersion();
      io.stdout.write(`opsman-gitops ${version} (sources ${sources})\n`);
      return EXIT.ok;
    }
    if (command === undefined || (command === 'help' && args[0] === undefined)) {
      // Asked for (`--help`, `help`): the help is the output. No command at all is a usage error, and its help a
      // diagnostic: stderr, so `opsman-gitops $CMD | jq` with an empty $CMD gets no text on its stdin (GNU's usage()).
      const bare = command === undefined && !options.help;
      (bare ? io.stderr : io.stdout).write(topLevelHelp());
      return bare ? EXIT.usage : EXIT.ok;
    }
    if (command === 'help') {
      io.stdout.write(commandHelp(args[0] as Parameters<typeof commandHelp>[0]));
      return EXIT.ok;
    }
    if (options.help) {
      io.stdout.write(commandHelp(command));
      return EXIT.ok;
    }
    const code = await dispatch(commandContext(options, io, deps.startEmulator), command, args);
    // Output lost to a full disk (not a reader that left): what was asked for did not all arrive.
    return code === EXIT.ok && io.outputLost?.() === true ? EXIT.error : code;
  } catch (error) {
    const code = reportError(io, error);
    // --json: stdout carries one JSON document even on failure, unless the plan or report is already there.
    if (wantsJson(argv) && !stdout.used()) {
      io.stdout.write(redactCredentials(renderFailureJson(failureDocument(error)), io.env));
    }
    // --markdown: the comment a pipeline posts says there is no plan, and why (markdown-failure.ts).
    if (wantsMarkdown(argv) && !stdout.used()) {
      const markdown = renderFailureMarkdown(failureDocument(error), commandWord(argv) ?? 'plan');
      io.stdout.write(redactCredentials(markdown, io.env));
    }
    return code;
  } finally {
    // The real process only: a terminal closed under a run leaves an exit that would abort (hangup.ts).
    if (deps.io === undefined) endAsHangup();
  }
}
