// Scenario: a list field that differs (matchers, a notification's roles) shows only the elements added, removed or
// changed, terraform style, in a deterministic order; the whole lists only when the same elements were reordered.
import { describe, expect, it } from 'vitest';
import type { FieldChange } from '../../../lambdas/core/model.ts';
import { changeBody } from '../../../lambdas/core/render/change-lines.ts';
import { listChangeLines } from '../../../lambdas/core/render/list-lines.ts';
import { formatFieldChange, readablePath } from '../../../lambdas/core/render/values.ts';
import { change } from '../../helpers/cli-plans.ts';

const m = (fieldName: string, value: string, operator = 'EQUALS') => ({ fieldName, operator, value });

describe('listChangeLines', () => {
  it.each([
    [
      'one matcher changed among unchanged ones',
      'matchers',
      [m('HOSTNAME', 'db1'), m('TYPE_NAME', 'PRIMARY')],
      [m('HOSTNAME', 'db1'), m('TYPE_NAME', 'SECONDARY')],
      [
        'matchers: ~ {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"} -> {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"SECONDARY"}',
      ],
    ],
    [
      'one added, one removed (another fieldName), the rest unchanged',
      'matchers',
      [m('HOSTNAME', 'db1'), m('REPLICA_SET_NAME', 'rs0')],
      [m('HOSTNAME', 'db1'), m('TYPE_NAME', 'PRIMARY')],
      [
        'matchers: + {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"}',
        'matchers: - {"fieldName":"REPLICA_SET_NAME","operator":"EQUALS","value":"rs0"}',
      ],
    ],
    [
      'a role added to a notification',
      'notifications[GROUP].roles',
      ['GROUP_OWNER'],
      ['GROUP_OWNER', 'GROUP_READ_ONLY'],
      ['notifications[GROUP].roles: + "GROUP_READ_ONLY"'],
    ],
    [
      'a role replaced (scalars are never paired)',
      'notifications[GROUP].roles',
      ['GROUP_OWNER'],
      ['GROUP_READ_ONLY'],
      ['notifications[GROUP].roles: + "GROUP_READ_ONLY"', 'notifications[GROUP].roles: - "GROUP_OWNER"'],
    ],
    ['the same elements reordered', 'x', ['a', 'b'], ['b', 'a'], ['x: ["a","b"] -> ["b","a"]']],
  ])('%s', (_what, path, before, after, lines) => {
    expect(listChangeLines(path, before, after)).toEqual(lines);
  });

  it('two matchers of one fieldName: each pairs with one of the other side, in list order, the same every time', () => {
    const before = [m('HOSTNAME', 'a', 'CONTAINS'), m('HOSTNAME', 'b', 'CONTAINS')];
    const after = [m('HOSTNAME', 'a', 'CONTAINS'), m('HOSTNAME', 'c', 'CONTAINS')];
    expect(listChangeLines('matchers', before, after)).toEqual([
      'matchers: ~ {"fieldName":"HOSTNAME","operator":"CONTAINS","value":"b"} -> {"fieldName":"HOSTNAME","operator":"CONTAINS","value":"c"}',
    ]);
  });

  it('a change body shows the changed matcher, not both lists, and leaves the JSON field as it was', () => {
    const field = {
      path: 'matchers',
      before: [m('HOSTNAME', 'db1'), m('TYPE_NAME', 'PRIMARY')],
      after: [m('HOSTNAME', 'db1'), m('TYPE_NAME', 'SECONDARY')],
    };
    const c = change({ key: 'k', action: 'update', id: 'i1', fields: [field] });
    expect(changeBody(c)).toEqual([
      'matchers: ~ {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"PRIMARY"} -> {"fieldName":"TYPE_NAME","operator":"EQUALS","value":"SECONDARY"}',
    ]);
    expect(c.fields).toEqual([field]);
  });
});

describe('readablePath', () => {
  it.each<[string, FieldChange, string]>([
    [
      'a field of the 3rd notification',
      { path: 'notifications[GROUP#2].intervalMin', item: 3 },
      'notifications[GROUP, item 3].intervalMin',
    ],
    [
      'a whole notification only on live',
      { path: 'notifications[GROUP#3]', item: 0 },
      'notifications[GROUP, only on live]',
    ],
    [
      'an address holding a dot and a bracket',
      { path: 'notifications[EMAIL:a].b@x.example#2].delayMin', item: 1 },
      'notifications[EMAIL, item 1].delayMin',
    ],
    [
      'a unique notification, as it is',
      { path: 'notifications[GROUP].intervalMin' },
      'notifications[GROUP].intervalMin',
    ],
    [
      'an item no planner writes, as it is',
      { path: 'notifications[GROUP#2].delayMin', item: -1 },
      'notifications[GROUP#2].delayMin',
    ],
    ['a path that is not a notification, as it is', { path: 'matchers', item: 2 }, 'matchers'],
  ])('%s', (_what, field, path) => {
    expect(readablePath(field)).toBe(path);
  });

  it('a secret of the 2nd of two WEBHOOKs reads by its place, its note kept', () => {
    const field: FieldChange = { path: 'notifications[WEBHOOK#2].webhookUrl', secret: true, note: 'changed', item: 2 };
    expect(formatFieldChange(field, 'update')).toBe('notifications[WEBHOOK, item 2].webhookUrl: (secret changed)');
  });
});
