/**
 * Which options a command takes. An option a command does not use is refused, never ignored: `apply --out plan.json`
 * accepted in silence reads as if a plan had been saved. Each refusal names the option, the command, and what to use
 * instead (Terraform refuses a flag its subcommand does not define in the same way).
 */
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';
import { UsageError } from './errors.ts';

/** Options every command takes: they print and exit before the command runs. */
export const UNIVERSAL_OPTIONS: readonly string[] = ['help', 'version'];

const NO_OPS_MANAGER = 'it never talks to Ops Manager';
const PLANNING = 'it makes no plan: deletion limits apply to `plan` and `apply`';

/** Why `command` has no use for an option, and what to use instead, where a generic "used by" would not say enough. */
const REASONS: Partial<Record<string, Partial<Record<CommandName, string>>>> = {
  'base-url': { validate: NO_OPS_MANAGER, unlock: NO_OPS_MANAGER, demo: 'the demo starts its own emulator' },
  'ca-file': { validate: NO_OPS_MANAGER, unlock: NO_OPS_MANAGER, demo: 'the demo starts its own emulator' },
  'insecure-skip-verify': { validate: NO_OPS_MANAGER, unlock: NO_OPS_MANAGER },
  'request-timeout': { validate: NO_OPS_MANAGER, unlock: NO_OPS_MANAGER, demo: 'the demo starts its own emulator' },
  'secrets-file': {
    validate: 'it checks secret references but never resolves them (`plan` does)',
    archive: 'it resolves no secrets (it reads the version manifest and the usage only)',
  },
  'state-dir': { validate: 'it keeps no state and takes no lock' },
  mode: {
    observe: 'it always runs in observe mode (`plan --mode observe` is the same run)',
    archive: 'it writes nothing to Ops Manager (a pinned manifest is uploaded by `apply`)',
  },
  'auto-approve': {
    plan: 'it writes nothing, so there is nothing to approve; use `apply --auto-approve`',
    observe: 'it writes nothing, so there is nothing to approve; use `apply --auto-approve`',
  },
  json: { schema: 'the schema is always JSON' },
  markdown: { apply: 'apply prints text or JSON; comment the output of `plan --markdown` instead' },
  'detailed-exitcode': {
    apply: 'its exit code already says whether every write succeeded; use `plan --detailed-exitcode` before it',
  },
  out: {
    apply: 'apply does not write a plan; use `plan --out FILE`, then `apply --plan FILE`',
    observe: 'observe reports drift and makes no plan to apply; use `plan --out FILE`',
  },
  plan: {
    plan: 'plan makes a plan and does not read one; save it with `plan --out FILE` and apply it with `apply --plan FILE`',
    observe: 'observe reads Ops Manager and does not read a saved plan; apply one with `apply --plan FILE`',
  },
  'max-deletes': {
    observe: 'it writes nothing, so no deletion limit applies; use it with `plan` or `apply`',
    validate: PLANNING,
    archive: PLANNING,
  },
  'allow-empty': {
    observe: 'it writes nothing, so no deletion limit applies; use it with `plan` or `apply`',
    validate: PLANNING,
    archive: PLANNING,
  },
  'ignore-windows': {
    plan: 'it writes nothing (its plan shows which targets a change window holds); only `apply` writes',
    observe: 'it writes nothing; only `apply` writes, and only `apply` is held by change windows',
  },
  'lease-wait': {
    plan: 'it writes nothing and takes no lock; only `apply` waits for one',
    observe: 'it writes nothing and takes no lock; only `apply` waits for one',
    archive: 'it takes no lock; only `apply` waits for one',
  },
};

/** Why a command takes (almost) no options, said before the generic "--x is for ...". */
const COMMAND_REASONS: Partial<Record<CommandName, string>> = {
  demo: 'the demo brings its own emulator, desired state and working directory',
  schema: 'it only prints the schema',
  help: 'it only prints help',
};

/** The commands that take `option`, for the generic refusal. */
function usersOf(option: string): CommandName[] {
  return COMMANDS.filter((c) => COMMAND_INFO[c].uses.includes(option));
}

/** The refusal of `--option` on `command`: `apply does not take --out: apply does not write a plan; use ...`. */
export function unusedOptionMessage(command: CommandName, option: string): string {
  const reason = REASONS[option]?.[command];
  const users = usersOf(option);
  const usedBy = users.length === 0 ? '' : `--${option} is for ${users.join(', ')}`;
  const why =
    reason ?? [COMMAND_REASONS[command], usedBy].filter((part) => part !== undefined && part !== '').join('; ');
  return `${command} does not take --${option}${why === '' ? '' : `: ${why}`}`;
}

/**
 * Refuses the first option `command` does not use (in command-line order), then the combinations `apply` cannot
 * honour. `given` holds the long names of the options on the command line. Throws UsageError.
 */
export function refuseUnusedOptions(command: CommandName, given: readonly string[]): void {
  const uses = COMMAND_INFO[command].uses;
  for (const option of given) {
    if (!uses.includes(option) && !UNIVERSAL_OPTIONS.includes(option)) {
      throw new UsageError(unusedOptionMessage(command, option), command);
    }
  }
  if (command === 'apply') refuseApplyConflicts(new Set(given));
}

/** Planning options that a saved plan cannot take: it is applied as it was made and reviewed. */
const PLANNING_OPTIONS = ['project', 'max-deletes', 'allow-empty'] as const;

function refuseApplyConflicts(given: ReadonlySet<string>): void {
  if (given.has('plan')) {
    for (const option of PLANNING_OPTIONS) {
      if (given.has(option)) {
        throw new UsageError(
          `apply --plan FILE applies the saved plan as it was made and does not take --${option}: ` +
            `pass --${option} to \`plan --out FILE\` and apply that plan`,
          'apply',
        );
      }
    }
    return;
  }
  if (given.has('json') && !given.has('auto-approve')) {
    // Asking means printing the plan as text before the question: stdout would not be one JSON document.
    throw new UsageError(
      'apply --json cannot ask for approval (the plan it shows would not be JSON): add --auto-approve, ' +
        'or save a plan with `plan --out FILE` and run `apply --plan FILE --json`',
      'apply',
    );
  }
}
