/** Help texts: the top-level overview and one page per command, listing the options it takes. */
import { COMMAND_INFO, COMMANDS, type CommandName } from './commands-table.ts';

/** One line of help per option. */
export const OPTION_HELP: Record<string, string> = {
  desired: '--desired DIR            desired-state directory (default desired-state/)',
  'base-url': '--base-url URL           Ops Manager base URL, …/api/public/v1.0 (else OPSMAN_BASE_URL)',
  'ca-file': '--ca-file FILE           PEM bundle of a private CA for HTTPS',
  'insecure-skip-verify': '--insecure-skip-verify   do not verify the TLS certificate (warns; never in production)',
  'request-timeout':
    '--request-timeout SECS   how long one Ops Manager request may take, retries included (default 120)',
  'secrets-file': '--secrets-file FILE      JSON {"<secret id>": {"<key>": "value"}} (else OPSMAN_SECRET_<ID>_<KEY>)',
  'state-dir': '--state-dir DIR          ownership state, lock and fingerprint key (default .opsman-gitops/)',
  'archive-dir': '--archive-dir DIR        manifests, usage and run reports (default <state-dir>/archive)',
  project:
    '--project ID             only this project, by id or metadata.name; repeatable (organizations are then skipped)',
  org: '--org ID                 the organization of the exported projects (needed to export TEAM notifications)',
  mode: '--mode MODE              observe | plan | apply: a cap; the stricter of this and each target wins',
  'auto-approve': '--auto-approve           apply without asking (required when there is no terminal)',
  json: '--json                   print the result (plan, report or problems) as JSON on stdout',
  markdown: '--markdown               print the plan as Markdown (pull-request comments)',
  'no-color':
    '--no-color               no ANSI colours (also NO_COLOR=1; colours only on a terminal unless FORCE_COLOR)',
  'detailed-exitcode':
    '--detailed-exitcode      exit 0 no changes, 2 changes (plan: to write; observe: drift or a release), 1 error (a blocked change too)',
  // The overview's line covers both commands that take --out; each command's own help overrides it.
  out: '--out FILE|DIR           plan: save the plan as JSON (for `apply --plan FILE`); export: write YAML under DIR',
  plan: '--plan FILE              apply this saved plan (refused if Ops Manager or the state moved since)',
  'max-deletes': '--max-deletes N          allow up to N deletions in this run (overrides Settings)',
  'allow-empty': '--allow-empty            allow pruning a project whose desired alert set is empty',
  'ignore-windows': '--ignore-windows         write targets a change window holds (Settings.changeWindows)',
  'lease-wait': "--lease-wait SECONDS     wait this long for another run's lock (default 0: fail fast)",
};

/** Each environment variable's help line, with the option whose commands read it. */
const ENVIRONMENT: readonly { line: string; readBy: string }[] = [
  { line: '  OPSMAN_BASE_URL          base URL when --base-url is absent', readBy: 'base-url' },
  { line: '  OPSMAN_PUBLIC_KEY        API public key', readBy: 'base-url' },
  { line: '  OPSMAN_PRIVATE_KEY       API private key (there is no flag for it, on purpose)', readBy: 'base-url' },
  { line: '  OPSMAN_SECRET_<ID>_<KEY> secret values when --secrets-file is absent', readBy: 'secrets-file' },
  {
    line: '  OPSMAN_FINGERPRINT_KEY   key of the state fingerprints (else generated into the state dir)',
    readBy: 'archive-dir',
  },
  {
    line: '  OPSMAN_DESIRED_CACHE     on (default) or off: the parsed desired state cached in <state-dir>/cache/desired/',
    readBy: 'archive-dir',
  },
  {
    line: '  HTTPS_PROXY, NO_PROXY    a proxy for Ops Manager, and hosts that bypass it (HTTP_PROXY too)',
    readBy: 'base-url',
  },
  { line: '  NO_COLOR                 disable colours', readBy: 'no-color' },
  { line: '  FORCE_COLOR              colours even when piped (a CI log); 0 or false: none', readBy: 'no-color' },
];

/** The environment section of a command: the variables the options it takes read; none when it reads none. */
function environment(uses: readonly string[] | undefined): string[] {
  const lines = ENVIRONMENT.filter((v) => uses === undefined || uses.includes(v.readBy)).map((v) => v.line);
  return lines.length === 0 ? [] : ['Environment:', ...lines, ''];
}

/**
 * The exit codes a command can give. 130 only where Ctrl-C, SIGTERM and SIGHUP are handled (plan, observe, apply,
 * archive, export, and the demo's steps that run them: the others end as the signal ends them); the --detailed-exitcode notes only where it is taken.
 */
function exitCodes(command: CommandName | undefined): string[] {
  const detailed = command === undefined || COMMAND_INFO[command].uses.includes('detailed-exitcode');
  const interruptible =
    command === undefined ||
    command === 'plan' ||
    command === 'observe' ||
    command === 'apply' ||
    command === 'archive' ||
    command === 'export' ||
    command === 'demo';
  const what =
    command === 'archive'
      ? 'reads abandoned, no new object written, what was not archived listed'
      : command === 'export'
        ? 'reads abandoned, nothing printed, no --out file left: all or none'
        : command === 'demo'
          ? 'during a plan, apply or archive step: it stops as that command does, and the demo ends there'
          : `planning: reads abandoned, nothing written; apply: state saved, lock released${command === undefined ? '; archive: what was not archived listed; export: no file left' : ''}`;
  return [
    'Exit codes:',
    `  0  success${detailed ? ' (plan/observe --detailed-exitcode: no changes)' : ''}`,
    command === undefined || detailed || command === 'apply'
      ? `  1  error, failed target, blocked change or failed write${detailed ? ' (also with --detailed-exitcode)' : ''}`
      : '  1  error',
    `  2  usage error${detailed ? ' (plan/observe --detailed-exitcode: changes present)' : ''}`,
    ...(command === undefined || command === 'apply'
      ? ['  3  apply: nothing failed, but a change window held writes (not made; --ignore-windows writes them)']
      : []),
    ...(interruptible ? [`  130  stopped by Ctrl-C, SIGTERM or SIGHUP (${what})`] : []),
  ];
}

/** The top-level help. */
export function topLevelHelp(): string {
  const lines = [
    'opsman-gitops: GitOps for MongoDB Ops Manager (YAML desired state -> plan -> apply -> drift -> archive)',
    '',
    'Usage: opsman-gitops <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.padEnd(10)} ${COMMAND_INFO[c].summary}`),
    '',
    'Options (each command takes those its --help lists and refuses any other):',
    ...Object.values(OPTION_HELP).map((line) => `  ${line}`),
    '  -h, --help               help for a command',
    '  --version                print the version and its sources digest',
    '',
    ...environment(undefined),
    ...exitCodes(undefined),
    '',
    'Start with `npm start` (or `opsman-gitops demo`): the whole flow against an in-process emulator.',
  ];
  return `${lines.join('\n')}\n`;
}

/** The help of one command. */
export function commandHelp(command: CommandName): string {
  const info = COMMAND_INFO[command];
  const lines = [`Usage: ${info.usage}`, '', info.summary, '', info.description, ''];
  if (info.uses.length > 0) {
    lines.push('Options:');
    for (const name of info.uses) {
      const line = info.optionHelp?.[name] ?? OPTION_HELP[name];
      if (line !== undefined) lines.push(`  ${line}`);
    }
    lines.push('');
  }
  lines.push(
    // The emulator parses its own options (emulator/cli-args.ts), and it has no --version.
    command === 'emulator'
      ? 'The emulator takes only the options `opsman-gitops emulator --help` lists; any other is refused (exit 2).'
      : 'Any other option is refused (a usage error, exit 2); --help and --version always work.',
    '',
    ...environment(info.uses),
    ...exitCodes(command),
  );
  return `${lines.join('\n')}\n`;
}
