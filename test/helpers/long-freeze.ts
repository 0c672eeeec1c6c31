/**
 * A change window that holds payments-prod for as long as any test runs (a deny window from 2020 to 2099: open
 * whatever the real clock says, which the handlers read), added to the desired state of a handler test's world.
 */
import { expect } from 'vitest';
import { type AwsWorld, WORLD } from './aws-world.ts';
import { W } from './emulator-client.ts';

const SETTINGS = 'desired-state/settings.yaml';

/** The `Settings.changeWindows` lines of the freeze. */
const FREEZE =
  '  changeWindows:\n' +
  '    - name: long-freeze\n' +
  '      kind: deny\n' +
  '      from: 2020-01-01T00:00:00Z\n' +
  '      until: 2099-01-01T00:00:00Z\n' +
  `      projects: [${W.paymentsProd}]\n`;

/** How a run names the hold of the freeze. */
export const LONG_FREEZE_HOLD = 'held by change window long-freeze (deny) until 2099-01-01T00:00:00.000Z';

/** Adds the freeze to the world's Settings document (a `prepare` of useHandlerWorld). */
export function addLongFreeze(world: AwsWorld): void {
  const settings = world.s3.getText(WORLD.desiredBucket, SETTINGS);
  expect(settings).toContain('kind: Settings');
  world.s3.putDirect(WORLD.desiredBucket, SETTINGS, `${settings}${FREEZE}`);
}
