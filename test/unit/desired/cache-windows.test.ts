// Scenario: the desired-state cache keeps Settings.changeWindows (an entry decodes to the cold state), and refuses an
// entry whose windows are malformed (a cache written by hand or by a loader with other rules): it is a miss, never a
// window evaluated with a time zone Intl does not know.
import { describe, expect, it } from 'vitest';
import { decodeCacheEntry, encodeCacheEntry, stateOf } from '../../../lambdas/core/desired/cache-entry.ts';
import { loadDesiredState } from '../../../lambdas/core/desired/index.ts';
import type { DesiredState } from '../../../lambdas/core/model.ts';
import { MemorySource, projectYaml } from './memory-source.ts';

const SETTINGS =
  'apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  changeWindows:\n' +
  '    - {name: freeze, kind: deny, from: "2026-12-18T00:00:00Z", until: "2027-01-04T08:00:00Z"}\n' +
  '    - {name: bh, kind: allow, days: [Mon], start: "09:00", end: "17:00", timeZone: Europe/Paris}\n';

async function loaded(): Promise<DesiredState> {
  const result = await loadDesiredState(
    new MemorySource({ 'p.yaml': projectYaml('  alertConfigs: []\n'), 'settings.yaml': SETTINGS }),
  );
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.state;
}

describe('change windows in the desired-state cache', () => {
  it('round-trip: the decoded state has the same windows', async () => {
    const state = await loaded();
    expect(state.settings.changeWindows).toHaveLength(2);
    const text = encodeCacheEntry('k', state, 'summary') as string;
    const decoded = decodeCacheEntry(text, 'k');
    expect(decoded && stateOf(decoded.body, state.files)).toStrictEqual(state);
  });

  it.each([
    ['an unknown time zone', { timeZone: 'Mars/Olympus' }],
    ['a time that is not HH:MM', { start: '9' }],
    ['no days', { days: [] }],
  ])('an entry with a window of %s is a miss', async (_name, edit) => {
    const state = await loaded();
    const [freeze, weekly] = state.settings.changeWindows ?? [];
    const bad = { ...state, settings: { ...state.settings, changeWindows: [freeze, { ...weekly, ...edit }] } };
    const text = encodeCacheEntry('k', bad as DesiredState, 'summary') as string;
    expect(text).toBeDefined();
    expect(decodeCacheEntry(text, 'k')).toBeUndefined();
  });
});
