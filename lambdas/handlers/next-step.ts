/**
 * What an operator paged at night should do next, per error code: the `nextStep` field of every failure log line of
 * the handlers ("run failed", "target failed", "change blocked", "event rejected", "not configured"). The runbook in docs/aws.md
 * ("Runbook: one entry per alarm") says the same at length; this is the one-line version that travels with the error.
 * Never quotes a value: it is chosen from the code (and, for an Ops Manager answer, its HTTP status) alone.
 */

/** Where the runbook lives, named in the fallback. */
export const RUNBOOK = 'docs/aws.md#runbook-one-entry-per-alarm';

/** One line per code. Codes not listed get {@link DEFAULT_NEXT_STEP}. */
const NEXT_STEPS: Readonly<Record<string, string>> = {
  INVALID_EVENT:
    'fix the event\'s sender: a scheduled event carries the EventBridge envelope only (redeploy the stack to restore the schedule\'s payload); a manual one takes {"mode","projects","dryRun","ignoreWindows"}',
  CONFIG_INVALID: 'fix the named environment variable (or the cdk.json context it comes from) and redeploy',
  DESIRED_STATE_INVALID:
    'run `npx opsman-gitops validate` on the merged commit, fix or revert the files the issues name, and deploy again',
  DESIRED_STATE_IN_TRANSIT:
    'wait for the deployment to finish; if no deployment is running, run `cdk deploy` again to complete the upload',
  SNAPSHOT_MANIFEST_INVALID: 'run `cdk deploy` again to rewrite the snapshot manifest',
  UNKNOWN_PROJECT: 'invoke again with project ids the desired state has',
  STATE_TOO_NEW:
    'a newer version wrote the state (a rollback?): deploy that version again, or a later one; do not delete the state',
  STATE_CORRUPT:
    'none for the run (it recovered ownership by adoption and pruned nothing); the unreadable state is the previous version of the state object (kept 30 days): restore by hand what adoption cannot (configs whose keys left git meanwhile), and find what wrote it',
  STATE_CONFLICT: 'none if the next run succeeds (another writer saved the state meanwhile)',
  LEASE_HELD: 'none: another run holds the lease; if none is running, it expires on its own (15 minutes)',
  LEASE_LOST: 'none if the next run succeeds: the next run completes the writes',
  CREDENTIALS_INVALID: 'fix the named field of the credentials secret (put-secret-value) and invoke {"mode":"plan"}',
  CREDENTIALS_NOT_FILLED: 'fill the credentials secret (docs/aws.md, First-time steps 5)',
  SECRET_NOT_JSON:
    'store the secret as a JSON SecretString (put-secret-value --secret-string) and invoke {"mode":"plan"}',
  SECRET_EMPTY: 'the named secret exists without a value: put-secret-value its JSON (a secretRef: with the key in git)',
  SECRET_NOT_FOUND:
    'create the named secret under the secret name prefix, or fix the secretRef in git; for the credentials secret (OPSMAN_CREDENTIALS_SECRET_ID, created by the stack), check it was not deleted or renamed: cdk deploy restores it empty, then fill it (docs/aws.md, First-time steps 5)',
  SECRET_KEY_NOT_FOUND: 'add the named key to the secret, or fix the secretRef in git',
  SECRET_ACCESS_DENIED: "check the function role (GetSecretValue on the prefix) and the secret's resource policy",
  SECRET_DECRYPTION_FAILED: "enable the secret's KMS key or grant the function role kms:Decrypt on it",
  SECRET_SCHEDULED_FOR_DELETION:
    'the secret is scheduled for deletion: restore it with aws secretsmanager restore-secret --secret-id <name>, then invoke {"mode":"plan"}',
  SECRET_REQUEST_INVALID:
    'Secrets Manager refused to read the secret in its current state: check it with aws secretsmanager describe-secret',
  SECRET_UNAVAILABLE:
    'none if the next run succeeds (Secrets Manager throttled or unreachable); else check the VPC endpoint',
  SECRET_UNRESOLVED:
    "a secretRef of this alert config could not be read when it was written (the message names the reference): create the secret or key, or fix the function role's access to it; the next run writes it",
  SECRET_REF_REFUSED: "a secretRef names the API key itself: point it at the notification's own secret in git",
  S3_ACCESS: 'none if the next run succeeds (S3 throttled or unreachable); else check the S3 endpoint and network',
  S3_ACCESS_DENIED: 'check the function role, the bucket policy and the KMS key of the named object',
  S3_NO_SUCH_BUCKET:
    "the named bucket does not exist: check the function's DESIRED_STATE_BUCKET and STATE_BUCKET (cdk deploy sets them) and whether the bucket was deleted outside CloudFormation (cdk deploy does not recreate it)",
  S3_CONTENT_ENCODING: 'upload the named object again, uncompressed or gzip-compressed (cdk deploy)',
  OPSMAN_AUTH_ERROR:
    'Ops Manager refused the API key: check the credentials secret holds the key Ops Manager has (rotation), and that the key is not deleted or disabled',
  OPSMAN_TRANSPORT_ERROR:
    'Ops Manager unreachable: check it is up, and the network path (VPC, security groups, DNS, CA bundle)',
  OPSMAN_DEADLINE_EXCEEDED: 'Ops Manager did not answer in time: check its health; the next run retries',
  OPSMAN_AMBIGUOUS_WRITE: 'none if the next run succeeds: it re-reads and adopts what the write created',
  OPSMAN_INVALID_RESPONSE:
    "something answered that is not Ops Manager's API (a proxy or login page?), or an answer this version cannot read: check OPSMAN_BASE_URL and the network path; report a bug if it is Ops Manager",
  OPSMAN_RESPONSE_TOO_LARGE:
    "an answer passed the client's size limit (the message names the request): check for a proxy answering in Ops Manager's place; report it if Ops Manager itself sent it",
  OPSMAN_ABORTED:
    "none if the next run succeeds: the request was stopped before Ops Manager answered (the Lambda's time limit)",
  OPSMAN_VALIDATION_ERROR: 'Ops Manager rejected the values: fix the named field in git (run validate)',
  LIVE_MALFORMED: 'Ops Manager answered an object this version cannot read: see the named field; report a bug',
  VERIFY_FAILED: 'the write did not stick: compare the object in Ops Manager with git; the next run retries',
  INTERRUPTED:
    "none if the next run succeeds (it makes the writes this one did not start); if runs keep stopping, Ops Manager is slow (check its health) or the function's timeout is too short for the installation (raise reconcileTimeoutMinutes: docs/aws.md#sizing)",
  CHANGE_BLOCKED:
    'the reason names what blocks the change and what unblocks it (a secret or key to create in Secrets Manager, the function role or KMS key to fix for an unreadable secret, a team to add, a safety gate to override); the next run writes it once that is done',
  UPDATE_FIGHT:
    'something else (the named actor: another installation, a script, a second GitOps tool, bulk edits in the UI) keeps changing this object back: give it one owner, by leaving it to the other writer (an alert config: its key in spec.release, since removed from git it would be deleted where prune is on; a default server type or audit-log rotation: out of git) or by stopping the other writer',
  ARCHIVE_FAILED:
    "an archive part was not stored (the message names it): none if the retry or the next day's run succeeds; a 403 needs the archive role's S3 access checked",
  ARCHIVE_PARTIAL: 'none if the retry succeeds; else see the failures of the run report',
  INTERNAL: `a bug: keep the stack of this line and the run report, and report it (${RUNBOOK})`,
};

/**
 * INVALID_EVENT of the archive function, which takes no options: the reconcile function's step would send its operator
 * to retry with `{"mode": ...}`, refused again.
 */
export const ARCHIVE_INVALID_EVENT_STEP =
  "fix the event's sender: the archive function takes a scheduled event with the EventBridge envelope only (redeploy the stack to restore the schedule's payload), or {} for a manual run: it takes no options";

/** Said when the code has no entry of its own. */
export const DEFAULT_NEXT_STEP = `read the message; the runbook of the alarm says what to check (${RUNBOOK})`;

/**
 * The next step for a failure coded `code`, with `httpStatus` the HTTP status of Ops Manager's error answer when the
 * failure is one (TargetFailure.httpStatus). For OPSMAN_API_ERROR the status tells a project deleted (404) from a key
 * without the role (401, 403) and from values refused (400, 409); a 403 coded OPSMAN_AUTH_ERROR is a key without the
 * role, not a refused key. Chosen from these two alone: a message's text never decides.
 */
export function nextStep(code: string | undefined, httpStatus?: number): string {
  // The client codes a 403 as a refused key too; on a write it means the key lacks the role for that object.
  if (code === 'OPSMAN_AUTH_ERROR' && httpStatus === 403)
    return "the API key lacks the role for this object: grant it in Ops Manager (Project or Organization Owner), or remove the setting from git; if every target is refused so and the message's error code names an access list, Ops Manager refuses the function's address instead: add its egress (NAT) IP to the API key's access list";
  if (code === 'OPSMAN_API_ERROR') {
    if (httpStatus === 404)
      return 'the project or organization is gone from Ops Manager (or the key cannot see it): restore it, or remove it from git';
    if (httpStatus === 401 || httpStatus === 403)
      return 'the API key lacks the role for this write: grant it in Ops Manager (Organization/Project Owner), or remove the setting from git';
    if (httpStatus === 409 || httpStatus === 400)
      return 'Ops Manager rejected the values: fix the named object in git (run validate)';
    return 'Ops Manager answered with an error: check its health; none if the next run succeeds';
  }
  return (code !== undefined && NEXT_STEPS[code]) || DEFAULT_NEXT_STEP;
}
