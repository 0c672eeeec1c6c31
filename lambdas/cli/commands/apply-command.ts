/**
 * The `apply --plan FILE` command line `plan --out FILE` suggests. It carries over the options the apply needs as the
 * plan was made with them: without the same `--secrets-file` every write that sends a secret fails, without the same
 * `--state-dir` the apply records ownership in another state (and another fingerprint key), and without the same
 * `--base-url` (a saved plan does not name its Ops Manager) it fails or goes wherever OPSMAN_BASE_URL points.
 */
import { baseUrl } from '../option-values.ts';
import { type CliOptions, DEFAULT_OPTIONS } from '../options.ts';

/** A word as a POSIX shell reads it: bare when it is plainly safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The base URL OPSMAN_BASE_URL gives, normalised as --base-url's is; undefined when unset or not valid. */
function fromEnvironment(env: Record<string, string | undefined>): string | undefined {
  try {
    return baseUrl(env.OPSMAN_BASE_URL);
  } catch {
    return undefined;
  }
}

/**
 * `opsman-gitops apply --plan FILE [options]`: the options of this plan run that `apply --plan` needs too. `env` is
 * the run's environment: a base URL it gives already is not repeated.
 */
export function applySavedPlanCommand(
  options: CliOptions,
  file: string,
  env: Record<string, string | undefined>,
): string {
  const words = ['opsman-gitops', 'apply', '--plan', file];
  if (options.baseUrl !== undefined && options.baseUrl !== fromEnvironment(env))
    words.push('--base-url', options.baseUrl);
  if (options.desired !== DEFAULT_OPTIONS.desired) words.push('--desired', options.desired);
  if (options.secretsFile !== undefined) words.push('--secrets-file', options.secretsFile);
  if (options.stateDir !== DEFAULT_OPTIONS.stateDir) words.push('--state-dir', options.stateDir);
  if (options.archiveDir !== `${options.stateDir.replace(/\/+$/, '')}/archive`) {
    words.push('--archive-dir', options.archiveDir);
  }
  if (options.caFile !== undefined) words.push('--ca-file', options.caFile);
  if (options.insecureSkipVerify) words.push('--insecure-skip-verify');
  if (options.requestTimeoutSeconds !== undefined) {
    words.push('--request-timeout', String(options.requestTimeoutSeconds));
  }
  return words.map(shellWord).join(' ');
}
