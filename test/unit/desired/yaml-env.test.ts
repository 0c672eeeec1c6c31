// Scenario: yaml's debug variables are hidden during a parse (nothing printed), and process.env always comes back.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseYamlFile } from '../../../lambdas/core/desired/parse.ts';
import { parseSimpleYaml } from '../../../lambdas/core/desired/simple-yaml.ts';
import { withoutYamlDebugVariables, YAML_DEBUG_VARIABLES } from '../../../lambdas/core/desired/yaml-env.ts';

/** The same document with a flow mapping: the plain-YAML fast path leaves it to yaml, whose parse must be quiet. */
const FLOW_TEXT = 'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: a}\n';

describe('withoutYamlDebugVariables', () => {
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const name of [...YAML_DEBUG_VARIABLES, 'OPSMAN_YAML_ENV_PROBE']) saved.set(name, process.env[name]);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('hides the debug variables, reads every other name through, and restores process.env after a return', () => {
    const real = process.env;
    process.env.LOG_TOKENS = '1';
    process.env.LOG_STREAM = '1';
    process.env.OPSMAN_YAML_ENV_PROBE = 'seen';
    const inside = withoutYamlDebugVariables(() => ({
      same: process.env === real,
      tokens: process.env.LOG_TOKENS,
      stream: process.env.LOG_STREAM,
      probe: process.env.OPSMAN_YAML_ENV_PROBE,
    }));
    expect(inside).toEqual({ same: false, tokens: undefined, stream: undefined, probe: 'seen' });
    expect(process.env).toBe(real);
    expect(process.env.LOG_TOKENS).toBe('1');
    expect(process.env.OPSMAN_YAML_ENV_PROBE).toBe('seen');
  });

  it('restores process.env after a throw', () => {
    const real = process.env;
    expect(() =>
      withoutYamlDebugVariables(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(process.env).toBe(real);
    process.env.OPSMAN_YAML_ENV_PROBE = 'still writable';
    expect(process.env.OPSMAN_YAML_ENV_PROBE).toBe('still writable');
  });

  it('restores the outer view when calls nest', () => {
    const real = process.env;
    const views = withoutYamlDebugVariables(() => {
      const outer = process.env;
      const inner = withoutYamlDebugVariables(() => process.env);
      return { outer, inner, after: process.env };
    });
    expect(views.after).toBe(views.outer);
    expect(views.inner).not.toBe(real);
    expect(process.env).toBe(real);
  });

  it('prints nothing while parsing a desired-state file with LOG_TOKENS and LOG_STREAM set', () => {
    process.env.LOG_TOKENS = '1';
    process.env.LOG_STREAM = '1';
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const dir = vi.spyOn(console, 'dir').mockImplementation(() => undefined);
    // The premises: yaml itself does print every token when the variable is set, and this text reaches yaml (plain
    // block YAML is read by the fast path, which never calls yaml: a parse of it would print nothing either way).
    parseAllDocuments(FLOW_TEXT);
    expect(log.mock.calls.length).toBeGreaterThan(0);
    expect(parseSimpleYaml(FLOW_TEXT)).toBeUndefined();
    log.mockClear();
    dir.mockClear();
    const { documents, issues } = parseYamlFile('a.yaml', FLOW_TEXT, { maxAliasCount: 100 });
    expect(issues).toEqual([]);
    expect(documents.map((d) => d.value)).toEqual([
      { apiVersion: 'opsman-gitops/v1', kind: 'Project', metadata: { name: 'a' } },
    ]);
    expect(log.mock.calls).toEqual([]);
    expect(dir.mock.calls).toEqual([]);
    expect(process.env.LOG_TOKENS).toBe('1');
  });
});
