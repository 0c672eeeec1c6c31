/**
 * The commands of `opsman-gitops`, their one-line summaries, and the options each one uses. A command refuses every
 * other option (option-use.ts): an option accepted and ignored reads as if it had done something.
 */

/** Names of the commands. */
export const COMMANDS = [
  'validate',
  'plan',
  'apply',
  'observe',
  'archive',
  'export',
  'schema',
  'emulator',
  'demo',
  'unlock',
  'help',
] as const;

/** One command name. */
export type CommandName = (typeof COMMANDS)[number];

/** Summary and used options of one command, for help. */
export interface CommandInfo {
  summary: string;
  usage: string;
  /** The options this command reads (long names); it refuses every other one except --help and --version. */
  uses: readonly string[];
  /** Help lines of options that mean something narrower for this command than the shared line says. */
  optionHelp?: Readonly<Record<string, string>>;
  description: string;
}

const CONNECTION = ['base-url', 'ca-file', 'insecure-skip-verify', 'request-timeout'] as const;
/** What every run against Ops Manager reads: desired state, secrets, state and archive, the project selection. */
const RUN = ['desired', 'secrets-file', 'state-dir', 'archive-dir', 'project', 'no-color'] as const;

/** The command table. */
export const COMMAND_INFO: Record<CommandName, CommandInfo> = {
  validate: {
    summary: 'Check the desired-state YAML (schema and semantic rules); no API call',
    usage: 'opsman-gitops validate [--desired DIR] [--json]',
    uses: ['desired', 'json', 'no-color'],
    optionHelp: {
      json: '--json                   print the problems, or what was loaded, as JSON on stdout',
    },
    description:
      'Loads every *.yaml/*.yml under --desired and prints every problem with file:line:column, or a one-line\n' +
      'summary of what was loaded. Exit 0 when valid, 1 when not. Never talks to Ops Manager.',
  },
  plan: {
    summary: 'Compare desired state with Ops Manager and print what apply would do',
    usage: 'opsman-gitops plan [--json|--markdown] [--out FILE] [--detailed-exitcode] [--project ID]...',
    uses: [...CONNECTION, ...RUN, 'mode', 'json', 'markdown', 'out', 'detailed-exitcode', 'max-deletes', 'allow-empty'],
    optionHelp: {
      json: '--json                   print the plan as JSON on stdout',
      out: '--out FILE               save the plan as JSON for `apply --plan FILE`',
    },
    description:
      'Reads live state, diffs it against the desired state and prints the plan. Writes nothing to Ops Manager.\n' +
      '--out saves the plan as JSON for a later `apply --plan FILE`. With --detailed-exitcode: 0 no changes,\n' +
      '2 changes present (something to write; with --mode observe, drift), 1 error, a blocked change included.',
  },
  apply: {
    summary: 'Plan, confirm, and write the changes to Ops Manager',
    usage:
      'opsman-gitops apply [--auto-approve] [--plan FILE] [--max-deletes N] [--allow-empty] [--ignore-windows] [--project ID]...',
    uses: [
      ...CONNECTION,
      ...RUN,
      'mode',
      'json',
      'auto-approve',
      'plan',
      'max-deletes',
      'allow-empty',
      'ignore-windows',
      'lease-wait',
    ],
    optionHelp: {
      json: "--json                   print the run report (the plan and each write's result) as JSON on stdout",
    },
    description:
      'Plans, shows the plan, asks for confirmation on a terminal (or proceeds with --auto-approve), then applies\n' +
      'exactly the plan shown. Without a terminal and without --auto-approve it refuses. --plan FILE applies a\n' +
      'saved plan (no prompt, as Terraform) and refuses if Ops Manager moved, or another run wrote the state, since\n' +
      'the plan was made; it takes no --project, --max-deletes or --allow-empty (give those to `plan --out`). --json\n' +
      'needs --auto-approve or --plan: a JSON run cannot ask. Change windows (Settings.changeWindows) are\n' +
      'checked when the writes start, as --desired has them then (for a saved plan too): a held target is not\n' +
      'written and the run exits 3; --ignore-windows writes it anyway. On a terminal, a plan whose every write\n' +
      'is held is shown and exits 3 without asking.',
  },
  observe: {
    summary: 'Read Ops Manager and report drift only; writes nothing',
    usage: 'opsman-gitops observe [--json|--markdown] [--detailed-exitcode] [--project ID]...',
    uses: [...CONNECTION, ...RUN, 'json', 'markdown', 'detailed-exitcode'],
    optionHelp: { json: '--json                   print the plan (its drift) as JSON on stdout' },
    description:
      'Same as `plan --mode observe`: every difference is reported as drift, with who changed it when the audit\n' +
      'events say so. With --detailed-exitcode: 0 no drift, 2 drift or a release (spec.release: shown, not applied),\n' +
      '1 error (a blocked change is an error: 1 wins over 2, and the drift is still printed).',
  },
  archive: {
    summary: 'Archive the version manifest and the usage (physical hosts, host assignments)',
    usage: 'opsman-gitops archive [--archive-dir DIR] [--json]',
    uses: [...CONNECTION, 'desired', 'state-dir', 'archive-dir', 'project', 'json', 'no-color'],
    optionHelp: {
      'state-dir': '--state-dir DIR          desired-state cache and its key (default .opsman-gitops/); takes no lock',
      json: '--json                   print the run report as JSON on stdout',
    },
    description:
      "Stores the version manifest content-addressed (only when it changed), the physical hosts and this month's\n" +
      'host assignments under --archive-dir, and a run report. Writes nothing to Ops Manager (a pinned manifest\n' +
      'is uploaded by apply) and resolves no secrets.',
  },
  export: {
    summary: 'Write desired-state YAML for the alert configs a project already has (read-only; adoption on-ramp)',
    usage: 'opsman-gitops export --project ID [--project ID]... [--org ID] [--out DIR] [--json]',
    uses: [...CONNECTION, 'project', 'org', 'out', 'json'],
    optionHelp: {
      json: '--json                   print the result as JSON on stdout (per project: file or YAML, exported, skipped, secretRefs)',
      project: '--project ID             a project to export (24 hex); required, repeatable',
      out: '--out DIR                write DIR/project-<id>.yaml per project (refused if one exists or DIR declares it)',
    },
    description:
      "Reads each project's alert configs, default server type and audit-log rotation and prints a Project document\n" +
      'per project (or writes them under --out): server defaults and what Ops Manager normalises away are left out,\n' +
      'each config gets a key from its event type (-2, -3 by creation order), and every secret field a secretRef whose\n' +
      'names are listed on stderr (Ops Manager never shows a secret). A config the YAML cannot express is skipped\n' +
      'with a warning naming its id. Then `plan` adopts every exported config (<=). Writes nothing to Ops Manager.',
  },
  schema: {
    summary: 'Print the JSON Schema of the desired-state documents',
    usage: 'opsman-gitops schema > desired-state.schema.json',
    uses: [],
    description: 'Prints the draft 2020-12 JSON Schema editors use to complete and check the YAML.',
  },
  emulator: {
    summary: 'Run the Ops Manager API emulator (see `opsman-gitops emulator --help`)',
    usage: 'opsman-gitops emulator [--host H] [--port P] [--seed FILE] [--data-file FILE] [--admin]',
    uses: [],
    description: 'Starts the standalone emulator of the Ops Manager Public API. Its own options: `emulator --help`.',
  },
  demo: {
    summary: 'Run the whole flow against an in-process emulator (what `npm start` runs)',
    usage: 'opsman-gitops demo [--no-color]',
    uses: ['no-color'],
    description:
      'Starts the emulator on the example seed in a temporary directory and runs validate, plan, apply, a second\n' +
      'plan (no changes), an edit by another user, the drift it causes with attribution, a corrective apply and\n' +
      'the archive. Needs no setup; keeps its temporary directory for inspection and prints how to remove it.',
  },
  unlock: {
    summary: 'Remove the lock a killed apply left behind (as terraform force-unlock)',
    usage: 'opsman-gitops unlock RUN_ID [--state-dir DIR]',
    uses: ['state-dir'],
    optionHelp: {
      'state-dir': '--state-dir DIR          the state directory whose lock to remove (default .opsman-gitops/)',
    },
    description:
      'Removes <state-dir>/lease.json when it names run RUN_ID (the id the LEASE_HELD error and the lock file show),\n' +
      'so the next apply need not wait for it to expire. Any other holder is left alone and named. If that run is in\n' +
      'fact still alive, its next write finds its lease lost and stops (LEASE_LOST). Never talks to Ops Manager.',
  },
  help: {
    summary: 'Show help for a command',
    usage: 'opsman-gitops help [COMMAND]',
    uses: [],
    description: 'Same as `opsman-gitops COMMAND --help`.',
  },
};
