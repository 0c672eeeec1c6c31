// Scenario: the loader records where each secretRef is written (block YAML on the fast path, flow YAML through yaml, a template's file for a template's config), and a desired-state cache hit carries the same positions.
import { describe, expect, it } from 'vitest';
import { loadDesiredState, loadDesiredStateCached } from '../../../lambdas/core/desired/index.ts';
import { positionKey } from '../../../lambdas/core/desired/locate.ts';
import { parseSimpleYaml } from '../../../lambdas/core/desired/simple-yaml.ts';
import type { DesiredState, SourceLocation } from '../../../lambdas/core/model.ts';
import { MapCache, sourceOf } from './cache-fakes.ts';
import { projectYaml } from './memory-source.ts';

const BLOCK = projectYaml(
  [
    '  alertTemplates:',
    '    - shared',
    '  alertConfigs:',
    '    - key: host-down',
    '      eventTypeName: HOST_DOWN',
    '      notifications:',
    '        - typeName: GROUP',
    '          roles:',
    '            - GROUP_OWNER',
    '        - typeName: PAGER_DUTY',
    '          serviceKey:',
    "            secretRef: 'ops/pd#service-key'",
    '',
  ].join('\n'),
);

const TEMPLATE = [
  'apiVersion: opsman-gitops/v1',
  'kind: AlertTemplate',
  'metadata:',
  '  name: shared',
  'spec:',
  '  alertConfigs:',
  '    - key: no-primary',
  '      eventTypeName: NO_PRIMARY',
  '      notifications:',
  '        - { typeName: SLACK, channelName: ops, apiToken: { secretRef: ops/slack#token } }',
  '',
].join('\n');

/** 1-based line and column of the first `needle` in `text`. */
function at(file: string, text: string, needle: string): SourceLocation {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`${needle} not in ${file}`);
  return {
    file,
    line: text.slice(0, offset).split('\n').length,
    column: offset - text.lastIndexOf('\n', offset - 1),
  };
}

function configs(state: DesiredState) {
  return Object.fromEntries(state.projects[0]?.alertConfigs.map((c) => [c.key, c.secretSources]) ?? []);
}

const FILES = { 'projects/p1.yaml': BLOCK, 'templates/shared.yaml': TEMPLATE };
const EXPECTED = {
  'host-down': { 'notifications[1].serviceKey': at('projects/p1.yaml', BLOCK, "'ops/pd#service-key'") },
  'no-primary': { 'notifications[0].apiToken': at('templates/shared.yaml', TEMPLATE, 'ops/slack#token') },
};

describe('secretSources', () => {
  it('the block file takes the fast path, which knows the position (no re-parse), and the flow template does not', () => {
    const path = ['spec', 'alertConfigs', 0, 'notifications', 1, 'serviceKey', 'secretRef'];
    const { line, column } = EXPECTED['host-down']['notifications[1].serviceKey'];
    expect(parseSimpleYaml(BLOCK)?.[0]?.positions.get(positionKey(path))).toStrictEqual({ line, column });
    expect(parseSimpleYaml(TEMPLATE)).toBeUndefined();
  });

  it('a cold load records the position of each secretRef string, in the file it is written in', async () => {
    const loaded = await loadDesiredState(sourceOf(FILES));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect(configs(loaded.state)).toStrictEqual(EXPECTED);
  });

  it('a cache hit carries the same positions', async () => {
    const cache = new MapCache();
    const first = await loadDesiredStateCached(sourceOf(FILES), {}, cache);
    const second = await loadDesiredStateCached(sourceOf(FILES), {}, cache);
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    if (!second.result.ok) throw new Error('the cached load failed');
    expect(configs(second.result.state)).toStrictEqual(EXPECTED);
  });
});
