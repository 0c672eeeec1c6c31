// Scenario: a Slack channel renamed in git changes its notification's identity: the plan shows the old notification
// removed and the new one added whole, its token as "(secret)"; it must not add "apiToken: (secret changed)" under
// it, which says a secret was replaced where a notification is new (and counted a fourth "field that differs").
import { describe, expect, it } from 'vitest';
import { withSecretChanges } from '../../../lambdas/core/diff.ts';
import type { FieldChange } from '../../../lambdas/core/model.ts';

const OLD = 'notifications[SLACK:#payments-alerts]';
const NEW = 'notifications[SLACK:#payments-oncall]';
const FIELDS: FieldChange[] = [
  { path: OLD, before: { typeName: 'SLACK', apiToken: '(secret)', channelName: '#payments-alerts' } },
  { path: NEW, after: { typeName: 'SLACK', apiToken: '(secret)', channelName: '#payments-oncall' } },
];

describe('the secret of a notification added whole', () => {
  it('is not listed as a secret changed: the notification says it is new', () => {
    expect(withSecretChanges(FIELDS, [`${NEW}.apiToken`], { [`${OLD}.apiToken`]: 'fp' })).toEqual(FIELDS);
  });

  it('a secret of a notification that is on both sides is still listed as changed', () => {
    const fields: FieldChange[] = [{ path: `${OLD}.intervalMin`, before: 5, after: 10 }];
    expect(withSecretChanges(fields, [`${OLD}.apiToken`], { [`${OLD}.apiToken`]: 'fp' })).toEqual([
      ...fields,
      { path: `${OLD}.apiToken`, secret: true, note: 'changed' },
    ]);
  });

  it('a field added inside a notification shared by identity does not hide the secret of that notification', () => {
    const fields: FieldChange[] = [{ path: 'notifications[WEBHOOK].delayMin', after: 5, item: 2 }];
    const items = new Map([['notifications[WEBHOOK#2]', 2]]);
    expect(
      withSecretChanges(fields, ['notifications[WEBHOOK#2].webhookSecret'], { x: 'fp' }, items).map((f) => f.note),
    ).toEqual([undefined, 'changed']);
  });
});
