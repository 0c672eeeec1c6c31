/**
 * What a `--json` run prints on stdout when it fails before it has a plan or a report to print: one JSON document, so
 * a pipeline that reads stdout (`plan --json > plan.json`) always gets JSON and can tell a failure from a plan:
 *
 *   {"error": {"message": "...", "code": "DESIRED_STATE_INVALID"}, "issues": [...], "ok": false}
 *
 * `issues` (file, line, column, path, message, and where useful expected, found, hint) is present when the desired
 * state is invalid; it is the shape `validate --json` prints. The exit code is unchanged; stderr still says it in words.
 */
import { renderJson } from '../core/render/json.ts';
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';
import { CliError } from './errors.ts';
import type { TextSink } from './io.ts';
import { commandWord, flagGiven } from './options.ts';
import type { ValidationIssue } from './wiring.ts';

/** The failure document of a `--json` run. */
export interface FailureDocument {
  ok: false;
  /** `code` is the error's stable code (`CLI_USAGE`, `DESIRED_STATE_INVALID`, `LEASE_HELD`, ...). */
  error: { code: string; message: string };
  /** The validation issues, when the desired state is invalid. */
  issues?: unknown[];
}

/** The code of the failure document of an invalid desired state (the reconciler's DesiredStateInvalidError code). */
const DESIRED_STATE_INVALID = 'DESIRED_STATE_INVALID';

/** The document of an invalid desired state: the issues and a message naming the directory. */
export function invalidDesiredDocument(message: string, issues: readonly ValidationIssue[]): FailureDocument {
  return { ok: false, error: { code: DESIRED_STATE_INVALID, message }, issues: [...issues] };
}

/** The document of any error a command throws. Messages never hold credentials (main.ts redacts them anyway). */
export function failureDocument(error: unknown): FailureDocument {
  if (!(error instanceof Error)) return { ok: false, error: { code: 'ERROR', message: String(error) } };
  const raw = (error as { code?: unknown }).code;
  const code = error instanceof CliError ? error.code : typeof raw === 'string' ? raw : 'ERROR';
  const doc: FailureDocument = { ok: false, error: { code, message: error.message } };
  // DesiredStateInvalidError (the desired state changed between the CLI's check and the run's own load).
  const issues = (error as { issues?: unknown }).issues;
  if (Array.isArray(issues)) doc.issues = issues;
  return doc;
}

/** The document as the stable JSON the other `--json` outputs use. */
export function renderFailureJson(doc: FailureDocument): string {
  return renderJson(doc);
}

/**
 * True when the command line asks a command that prints JSON for `--json`: its failure then goes on stdout as JSON
 * too. Read from argv, not from parsed options, so a usage error (which has none) is covered as well, including a
 * refused `--json=VALUE` and a misspelt command (`plna --json | jq`): whoever wrote them pipes stdout into a JSON reader,
 * which must not read an empty stdin as success.
 */
export function wantsJson(argv: readonly string[]): boolean {
  const command = commandWord(argv);
  if (command === undefined || !flagGiven(argv, '--json')) return false;
  const known = (COMMANDS as readonly string[]).includes(command);
  return !known || COMMAND_INFO[command as CommandName].uses.includes('json');
}

/** Wraps a sink to tell whether anything was written: a plan already printed is never followed by a second document. */
export function trackWrites(sink: TextSink): { sink: TextSink; used(): boolean } {
  let used = false;
  return {
    sink: {
      write(text: string): unknown {
        used = true;
        return sink.write(text);
      },
      get isTTY(): boolean | undefined {
        return sink.isTTY;
      },
    },
    used: () => used,
  };
}
