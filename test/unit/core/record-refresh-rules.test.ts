// recordBehind (lambdas/core/record-refresh.ts) on its own: when the record of an in-sync config says another body
// was last applied.
import { describe, expect, it } from 'vitest';
import type { DesiredAlertBody } from '../../../lambdas/core/alert-body.ts';
import { appliedDigestOf } from '../../../lambdas/core/ignore-fields.ts';
import type { OwnedAlertConfig } from '../../../lambdas/core/ports.ts';
import { recordBehind } from '../../../lambdas/core/record-refresh.ts';

const body = {
  eventTypeName: 'HOST_DOWN',
  enabled: true,
  matchers: [],
  notifications: [{ typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5, delayMin: 0 }],
  ignoreFields: ['notifications', 'enabled'],
} as unknown as DesiredAlertBody;
const TEXT = '{"eventTypeName":"HOST_DOWN"}';

describe('recordBehind', () => {
  it('a record of the same body and ignoreFields is not behind, in whatever order git lists them', () => {
    // apply records ignoredFields sorted; git may list them in any order.
    const record: OwnedAlertConfig = {
      id: 'a1',
      appliedDigest: appliedDigestOf(body, TEXT),
      ignoredFields: ['enabled', 'notifications'],
    };
    expect(recordBehind(record, body, TEXT)).toBe(false);
    expect(recordBehind({ ...record, ignoredFields: ['enabled'] }, body, TEXT)).toBe(true);
  });
});
