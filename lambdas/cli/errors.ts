/**
 * Errors of the command line. Each carries the exit code it ends the process with; none ever carries a credential or a
 * secret value (messages name options and files, never their secret contents).
 */

/** Exit codes of every command: documented in docs/cli.md. */
export const EXIT = {
  /** Success; `plan`/`observe --detailed-exitcode`: no changes. */
  ok: 0,
  /** An error, a failed target, a blocked change or a failed write. */
  error: 1,
  /** A usage error (unknown flag, bad value); `plan`/`observe --detailed-exitcode`: changes present. */
  usage: 2,
  /** `plan`/`observe --detailed-exitcode`: changes present (same number as usage, Terraform's convention). */
  changes: 2,
  /** `apply`: nothing failed, but a change window held writes (not written; `--ignore-windows` writes them). */
  held: 3,
  /** A plan, observe or apply stopped by Ctrl-C, SIGTERM, SIGHUP or a closed output (128 + SIGINT, the shell's convention). */
  interrupted: 130,
} as const;

/** Base of every CLI error: a stable `code` and the exit code. */
export class CliError extends Error {
  override name = 'CliError';
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, exitCode: number = EXIT.error, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.exitCode = exitCode;
  }
}

/** The command line itself is wrong: unknown command or flag, bad value, missing setting. Exit 2. */
export class UsageError extends CliError {
  override name = 'UsageError';
  /** The command whose help to point at, when known. */
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super('CLI_USAGE', message, EXIT.usage);
    this.command = command;
  }
}
