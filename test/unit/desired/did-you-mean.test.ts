// Scenario: "did you mean" finds what a new user meant (typo, abbreviation, stopped short, label, other case) for every field name and enumeration value of the schema, stays silent when unsure, and a file missing its "---" says so at file:line:column.
import { describe, expect, it } from 'vitest';
import { suggestion, suggestionsFor } from '../../../lambdas/core/desired/did-you-mean.ts';
import { holdsBlock, holdsList, placesOf } from '../../../lambdas/core/desired/field-places.ts';
import { DESIRED_STATE_SCHEMA, loadDesiredState, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';
import { MemorySource } from './memory-source.ts';

type Node = Record<string, unknown>;

/** Every enumeration and every set of sibling field names in the schema ($defs and the kinds' branches included). */
function schemaLists(): { enums: string[][]; fields: string[][] } {
  const enums: string[][] = [];
  const fields: string[][] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const node = value as Node;
    if (Array.isArray(node.enum)) enums.push(node.enum.map(String));
    if (node.properties !== null && typeof node.properties === 'object' && node.additionalProperties === false) {
      fields.push(Object.keys(node.properties as Node));
    }
    for (const child of Object.values(node)) walk(child);
  };
  walk(DESIRED_STATE_SCHEMA);
  return { enums, fields };
}

/** A one-letter typo: the letter before the last dropped (`PRODUCTION_SERVR`, `eventTypeNme`). */
const dropOne = (name: string) => name.slice(0, -2) + name.slice(-1);

describe('suggestionsFor: the tiers', () => {
  it.each([
    // [input, candidates, expected]
    ['PROD_SERVER', ['DEV_SERVER', 'TEST_SERVER', 'PRODUCTION_SERVER', 'RAM_POOL'], ['PRODUCTION_SERVER']],
    ['PRODUCTION', ['DEV_SERVER', 'TEST_SERVER', 'PRODUCTION_SERVER', 'RAM_POOL'], ['PRODUCTION_SERVER']],
    ['Production Server', ['DEV_SERVER', 'PRODUCTION_SERVER'], ['PRODUCTION_SERVER']],
    ['production-server', ['DEV_SERVER', 'PRODUCTION_SERVER'], ['PRODUCTION_SERVER']],
    ['eventType', ['key', 'eventTypeName', 'enabled', 'notifications'], ['eventTypeName']],
    ['event_type_name', ['key', 'eventTypeName'], ['eventTypeName']],
    ['intervalMinutes', ['typeName', 'delayMin', 'intervalMin'], ['intervalMin']],
    ['GREATER', ['GREATER_THAN', 'LESS_THAN'], ['GREATER_THAN']],
    ['aply', ['observe', 'plan', 'apply'], ['apply']],
    ['GRUOP', ['GROUP', 'ORG', 'TEAM'], ['GROUP']],
    // The qualifier left out: `id` in metadata had no suggestion at all.
    ['id', ['name', 'projectId', 'orgId'], ['projectId', 'orgId']],
    ['address', ['typeName', 'emailAddress', 'emailEnabled'], ['emailAddress']],
    // Regression: two letters of four are no "few slips": HOST suggested PORT rather than the names it starts.
    [
      'HOST',
      ['TYPE_NAME', 'HOSTNAME', 'PORT', 'HOSTNAME_AND_PORT', 'REPLICA_SET_NAME', 'SHARD_NAME', 'CLUSTER_NAME'],
      ['HOSTNAME', 'HOSTNAME_AND_PORT'],
    ],
    // a slip of one letter beats an abbreviation: DEV_SERVR is DEV_SERVER, not some other *_SERVER
    ['DEV_SERVR', ['DEV_SERVER', 'TEST_SERVER', 'PRODUCTION_SERVER'], ['DEV_SERVER']],
    // two equally near names are both offered
    ['GROUP_READ', ['GROUP_READ_ONLY', 'ORG_READ_ONLY'], ['GROUP_READ_ONLY']],
  ])('%s -> %j', (input, candidates, expected) => {
    expect(suggestionsFor(input, candidates)).toEqual(expected);
  });

  it.each([
    ['owner', ['name', 'projectId', 'orgId']],
    ['completelyDifferent', ['typeName', 'delayMin']],
    // GROUP starts nine roles: naming one would be a guess
    ['GROUP', ['GROUP_OWNER', 'GROUP_READ_ONLY', 'GROUP_AUTOMATION_ADMIN', 'GROUP_MONITORING_ADMIN', 'ORG_OWNER']],
    ['apply', ['observe', 'plan', 'apply']],
    ['', ['a']],
  ])('%s -> nothing', (input, candidates) => {
    expect(suggestionsFor(input, candidates)).toEqual([]);
  });

  it('offers up to three, worded as a choice', () => {
    expect(suggestion('HOST_X', ['HOST_A', 'HOST_B'])).toEqual({
      text: '; did you mean "HOST_A" or "HOST_B"?',
      hint: 'did you mean "HOST_A" or "HOST_B"?',
    });
    expect(suggestion('zzz', ['a', 'b'])).toEqual({ text: '' });
  });
});

describe('every name of the schema', () => {
  const { enums, fields } = schemaLists();

  it('finds the lists (a walk that found nothing would pass anything)', () => {
    expect(enums.length).toBeGreaterThanOrEqual(10);
    expect(fields.length).toBeGreaterThanOrEqual(10);
    expect(enums.some((list) => list.includes('PRODUCTION_SERVER'))).toBe(true);
    expect(fields.some((list) => list.includes('eventTypeName'))).toBe(true);
  });

  it('each enumeration value is found again from a typo, lower case and, for long names, its first part', () => {
    const missed: string[] = [];
    for (const list of enums) {
      for (const value of list) {
        const variants = [value.toLowerCase()];
        if (value.length >= 5) variants.push(dropOne(value));
        const words = value.split('_');
        // PRODUCTION_SERVER -> PROD_SERVER: every word cut to four letters
        if (words.length > 1 && words.some((w) => w.length > 4))
          variants.push(words.map((w) => w.slice(0, 4)).join('_'));
        for (const variant of variants) {
          if (variant !== value && !suggestionsFor(variant, list).includes(value))
            missed.push(`${variant} -> ${value}`);
        }
      }
    }
    expect(missed).toEqual([]);
  });

  it('each field name is found again from a typo, snake_case and, for camelCase names, its first words', () => {
    const missed: string[] = [];
    for (const list of fields) {
      for (const field of list) {
        const variants = [field.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()];
        if (field.length >= 5) variants.push(dropOne(field));
        const stem = field.replace(/[A-Z][a-z]*$/, '');
        if (stem !== field && stem.length >= 5 && !list.includes(stem)) variants.push(stem);
        for (const variant of variants) {
          if (variant !== field && !suggestionsFor(variant, list).includes(field))
            missed.push(`${variant} -> ${field}`);
        }
      }
    }
    expect(missed).toEqual([]);
  });
});

describe('placesOf: where a misplaced field belongs, nearest first', () => {
  it.each([
    ['Project', 'defaultServerType', 'metadata', ['spec.defaultServerType']],
    ['Project', 'eventTypeName', 'spec.alertConfigs[].notifications[]', ['spec.alertConfigs[].eventTypeName']],
    ['Organization', 'orgId', 'spec', ['metadata.orgId']],
    ['AlertTemplate', 'intervalMin', 'spec.alertConfigs[]', ['spec.alertConfigs[].notifications[].intervalMin']],
    ['Settings', 'maxDeletes', 'spec', ['spec.prune.maxDeletes']],
    // spec.mode is one level away from metadata, metricThreshold.mode three
    ['Project', 'mode', 'metadata', ['spec.mode']],
    ['Project', 'mode', 'spec.alertConfigs[]', ['spec.alertConfigs[].metricThreshold.mode']],
    // places at the same distance: each of them (matchers[].operator is one step further)
    [
      'Project',
      'operator',
      'spec.alertConfigs[]',
      ['spec.alertConfigs[].metricThreshold.operator', 'spec.alertConfigs[].threshold.operator'],
    ],
    // more ties than MAX_PLACES (a secretRef belongs under any of ten secret fields): naming them would say nothing
    ['Project', 'secretRef', 'spec.alertConfigs[].notifications[]', []],
    ['Project', 'nope', 'spec', []],
    ['Nope', 'name', 'spec', []],
  ])('%s %s from %s -> %j', (kind, field, from, expected) => {
    expect(
      placesOf(
        kind,
        field,
        from.split(/\.|(?=\[\])/).filter((s) => s !== ''),
      ),
    ).toEqual(expected);
  });
});

describe('placesOf with the value written: the places that value fits, nearest first', () => {
  const from = (path: string) => path.split(/\.|(?=\[\])/).filter((s) => s !== '');
  it.each([
    // `mode: plan` in an alert config is the project's mode: metricThreshold.mode, nearer, only takes AVERAGE
    ['Project', 'mode', 'spec.alertConfigs[]', 'plan', ['spec.mode']],
    ['Project', 'mode', 'spec.alertConfigs[]', 'AVERAGE', ['spec.alertConfigs[].metricThreshold.mode']],
    // a number: a threshold's value, not the `threshold` mapping of an alert config
    [
      'Project',
      'threshold',
      'spec.alertConfigs[].matchers[]',
      3,
      ['spec.alertConfigs[].metricThreshold.threshold', 'spec.alertConfigs[].threshold.threshold'],
    ],
    [
      'Project',
      'threshold',
      'spec.alertConfigs[].matchers[]',
      { operator: 'LESS_THAN', threshold: 1 },
      ['spec.alertConfigs[].threshold'],
    ],
    // a value that fits no place: the places of the name, as without a value
    ['Project', 'mode', 'spec.alertConfigs[]', 'yolo', ['spec.alertConfigs[].metricThreshold.mode']],
  ])('%s %s from %s = %j -> %j', (kind, field, at, value, expected) => {
    expect(placesOf(kind, field, from(at), value)).toEqual(expected);
  });
});

async function issuesOf(text: string): Promise<ValidationIssue[]> {
  const result = await loadDesiredState(new MemorySource({ 'p.yaml': text }));
  return result.ok ? [] : result.issues;
}

const HEAD = 'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: {name: p1, projectId: 5e2211c17a3e5a48f5497de3}\n';

// Read from the schema, for the YAML hints: a field that is a mapping or a list wherever it appears (a value on its
// line beside a block under it is then the mistake), and one that is a list everywhere (keys under it lost a "-").
describe('holdsBlock and holdsList: what the schema makes a field everywhere', () => {
  it.each([
    ['spec', true, false],
    ['metadata', true, false],
    ['alertConfigs', true, true],
    ['notifications', true, true],
    ['roles', true, true],
    ['auditLogRotation', true, false],
    // Settings makes prune a mapping, a Project a boolean; metricThreshold.threshold is a number.
    ['prune', false, false],
    ['threshold', false, false],
    ['mode', false, false],
    ['name', false, false],
    ['noSuchField', false, false],
  ])('%s: block %s, list %s', (field, block, list) => {
    expect([holdsBlock(field), holdsList(field)]).toEqual([block, list]);
  });
});

describe('through the loader, at file:line:column', () => {
  it('an unknown field names the field it resembles', async () => {
    const text = `${HEAD}spec:\n  alertConfigs:\n    - key: a\n      eventType: NO_PRIMARY\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n`;
    const issue = (await issuesOf(text)).find((i) => i.message.startsWith('unknown field'));
    expect(issue).toMatchObject({ file: 'p.yaml', line: 7, column: 7, hint: 'did you mean "eventTypeName"?' });
  });

  it('an enumeration value names the value it resembles', async () => {
    const issues = await issuesOf(`${HEAD}spec:\n  defaultServerType: PROD_SERVER\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 5, column: 22, hint: 'did you mean "PRODUCTION_SERVER"?' });
  });

  it('a field at the wrong level says where it belongs', async () => {
    const text = `apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  name: p1\n  projectId: 5e2211c17a3e5a48f5497de3\n  mode: plan\nspec: {}\n`;
    const issues = await issuesOf(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 6, column: 3, hint: 'move it to spec.mode' });
  });
});

// A required field written at the wrong level, or misspelt twice, is one mistake: one issue that says where it goes.
describe('a misplaced or misspelt required field is one issue', () => {
  it('a required field written in spec says it belongs in metadata, and is not also "missing"', async () => {
    const text =
      'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata:\n  name: acme\nspec:\n  orgId: 5e2211c17a3e5a48f5497de0\n';
    expect((await issuesOf(text)).map((i) => [i.line, i.column, i.message])).toEqual([
      [6, 3, 'unknown field "orgId" in spec; it belongs in metadata.orgId (orgId is required and missing)'],
    ]);
  });

  it('a Project\'s projectId written in spec belongs in metadata, not a far-off "protect"', async () => {
    const text =
      'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata:\n  name: p1\nspec:\n  projectId: 5e2211c17a3e5a48f5497de3\n';
    expect((await issuesOf(text)).map((i) => [i.line, i.column, i.message, i.hint])).toEqual([
      [
        6,
        3,
        'unknown field "projectId" in spec; it belongs in metadata.projectId (projectId is required and missing)',
        'move it to metadata.projectId',
      ],
    ]);
  });

  it('two misspellings of one required field: the first says it is missing, the second only its did-you-mean', async () => {
    const text = `${HEAD}spec:\n  alertConfigs:\n    - key: a\n      eventTypName: HOST_DOWN\n      eventTypeNam: HOST_DOWN\n      notifications: [{typeName: GROUP}]\n`;
    expect((await issuesOf(text)).map((i) => [i.line, i.message])).toEqual([
      [
        7,
        'unknown field "eventTypName" in spec.alertConfigs[0]; did you mean "eventTypeName"? (eventTypeName is required and missing)',
      ],
      [8, 'unknown field "eventTypeNam" in spec.alertConfigs[0]; did you mean "eventTypeName"?'],
    ]);
  });

  it('a long value is quoted cut short', async () => {
    const issues = await issuesOf(`${HEAD}spec:\n  mode: ${'x'.repeat(70)}\n`);
    expect(issues.map((i) => i.message)).toEqual([
      `spec.mode must be one of observe, plan, apply; found "${'x'.repeat(57)}..."`,
    ]);
  });
});

describe('a misplaced field is sent where its value fits', () => {
  it('`mode: plan` in an alert config belongs in spec.mode, not in metricThreshold (AVERAGE only)', async () => {
    const text = `${HEAD}spec:\n  alertConfigs:\n    - key: a\n      eventTypeName: NO_PRIMARY\n      mode: plan\n      notifications: [{typeName: ADMIN}]\n`;
    const issues = await issuesOf(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      line: 8,
      column: 7,
      message: 'unknown field "mode" in spec.alertConfigs[0]; it belongs in spec.mode',
      hint: 'move it to spec.mode',
    });
  });
});

describe('documents missing their "---"', () => {
  it('two documents run together: one issue where the second starts, instead of a duplicate key per field', async () => {
    const issues = await issuesOf(`${HEAD}spec: {}\n${HEAD.replace('p1', 'p2')}spec: {}\n`);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 5, column: 1, hint: 'put "---" on its own line before line 5' });
    expect(issues[0]?.message).toContain('(first on line 1)');
  });

  it('a second kind: the same hint, at the repeated kind', async () => {
    const text = `${HEAD}spec: {}\nkind: Organization\nmetadata: {name: acme, orgId: 5e2211c17a3e5a48f5497de0}\nspec: {}\n`;
    const issues = await issuesOf(text);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ line: 5, column: 1, hint: 'put "---" on its own line before line 5' });
    expect(issues[0]?.message).toContain('"kind" appears again at the top level (first on line 2)');
  });

  it('a repeated key that does not start a document stays a duplicate key', async () => {
    const issues = await issuesOf(`${HEAD}spec: {}\nspec: {}\n`);
    expect(issues.map((i) => i.message)).toEqual([
      'duplicate key "spec": each key may appear once in a mapping; the first "spec" is on line 4, column 1',
    ]);
  });
});
