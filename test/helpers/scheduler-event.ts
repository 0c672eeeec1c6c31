/** The EventBridge Scheduler event that starts a function on its schedule, as the handlers receive it. */

/** The event of the schedule named `schedule` (e.g. `opsman-gitops-archive`), fired at `time`. */
export function schedulerEvent(schedule: string, time = '2026-03-01T02:00:00Z') {
  return {
    version: '0',
    id: 'e-2',
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: '123456789012',
    time,
    region: 'eu-west-1',
    resources: [`arn:aws:scheduler:eu-west-1:123456789012:schedule/default/${schedule}`],
    detail: {},
  };
}
