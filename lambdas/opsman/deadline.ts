/**
 * How the request deadline is named in messages: in seconds, with the setting a person can change
 * (`settingNames.requestDeadline`: `retry.deadlineMs` for library users, `--request-timeout` from the CLI; none when
 * empty).
 */
import type { ResolvedClientOptions } from './options.ts';

/** `120 s`, `1.5 s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** `120 s, --request-timeout to change`, or `120 s` when the caller's users cannot change it. */
export function deadlineNote(options: Pick<ResolvedClientOptions, 'retry' | 'settingNames'>): string {
  const setting = options.settingNames.requestDeadline;
  return `${formatSeconds(options.retry.deadlineMs)}${setting === '' ? '' : `, ${setting} to change`}`;
}

/** The cause of an attempt the deadline cut short (code OPSMAN_DEADLINE_EXCEEDED). */
export function deadlineCause(note: string): Error {
  const deadline = new Error(`Ops Manager did not answer within the request deadline (${note})`);
  Object.defineProperty(deadline, 'code', { value: 'OPSMAN_DEADLINE_EXCEEDED', enumerable: true });
  return deadline;
}

/** What an attempt cut by the headers timeout waited for: `no response headers within 60 s (each attempt; ...)`. */
export function headersTimeoutText(options: Pick<ResolvedClientOptions, 'timeouts'>, note: string): string {
  return `Ops Manager sent no response headers within ${formatSeconds(options.timeouts.headersMs)} (each attempt; request deadline ${note})`;
}
