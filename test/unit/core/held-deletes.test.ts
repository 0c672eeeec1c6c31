// The rule of deletes that wait for a create blocked at plan (lambdas/core/held-deletes.ts), on its own.
import { describe, expect, it } from 'vitest';
import { heldByBlockedCreates } from '../../../lambdas/core/held-deletes.ts';
import type { Change, TargetRef } from '../../../lambdas/core/model.ts';

const project = (id: string, name: string): TargetRef => ({ type: 'project', id, name });
const A = project('5e2211c17a3e5a48f5497de3', 'prod');
const B = project('5e2211c17a3e5a48f5497de4', 'staging');
// Another project with A's name (a desired state refuses that, a saved plan's changes are not checked for it).
const A2 = project('5e2211c17a3e5a48f5497de5', 'prod');

const change = (target: TargetRef, key: string, action: Change['action'], extra: Partial<Change> = {}): Change => ({
  target,
  kind: 'alertConfig',
  key,
  action,
  fields: [],
  reason: '',
  ...extra,
});
const BODY = { eventTypeName: 'HOST_DOWN', enabled: true, notifications: [] } as unknown as Change['after'];

describe('heldByBlockedCreates', () => {
  it('holds every delete of a project with a blocked create, naming it', () => {
    const held = heldByBlockedCreates([change(A, 'new-key', 'blocked', { after: BODY })]);
    expect(held(change(A, 'old-key', 'delete', { id: '1' }))).toMatch(
      /^not deleted: the create of "new-key" in this project is blocked;/,
    );
    expect(held(change(B, 'old-key', 'delete', { id: '2' }))).toBeUndefined();
  });

  it('holds a delete of the same key in another project, telling projects apart by id, not name', () => {
    const held = heldByBlockedCreates([change(A2, 'disk', 'blocked', { after: BODY })]);
    expect(held(change(A, 'disk', 'delete', { id: '1' }))).toMatch(
      /^not deleted: "disk" was not created in prod this run/,
    );
    expect(held(change(A, 'other', 'delete', { id: '1' }))).toBeUndefined();
  });

  it('counts neither a blocked update (it has an id) nor a blocked change with no body', () => {
    const held = heldByBlockedCreates([
      change(A, 'disk', 'blocked', { id: '9', after: BODY }),
      change(B, 'disk', 'blocked'),
    ]);
    expect(held(change(A, 'x', 'delete', { id: '1' }))).toBeUndefined();
    expect(held(change(A2, 'disk', 'delete', { id: '3' }))).toBeUndefined();
  });
  it('names the first blocked create of the project and counts the others', () => {
    const held = heldByBlockedCreates([
      change(A, 'first', 'blocked', { after: BODY }),
      change(A, 'second', 'blocked', { after: BODY }),
    ]);
    expect(held(change(A, 'old', 'delete', { id: '1' }))).toMatch(
      /^not deleted: the create of "first" in this project is blocked \(and 1 other create\);/,
    );
  });

  it('names every other project where the key was not created, two of one name included', () => {
    const held = heldByBlockedCreates([
      change(A, 'disk', 'blocked', { after: BODY }),
      change(A2, 'disk', 'blocked', { after: BODY }),
    ]);
    expect(held(change(B, 'disk', 'delete', { id: '1' }))).toMatch(
      /^not deleted: "disk" was not created in prod, prod this run/,
    );
  });

  it('holds nothing for a blocked singleton: only an alert config create is waited for', () => {
    const held = heldByBlockedCreates([change(A, 'disk', 'blocked', { kind: 'defaultServerType', after: BODY })]);
    expect(held(change(A, 'x', 'delete', { id: '1' }))).toBeUndefined();
    expect(held(change(B, 'disk', 'delete', { id: '2' }))).toBeUndefined();
  });
});
