// Scenario: one wrongly indented line (spaces or a tab) is one issue at that line saying what is wrong, not the
// cascade of YAML errors it causes; errors that are genuinely separate are all still reported.
import { describe, expect, it } from 'vitest';
import { parseYamlFile } from '../../../lambdas/core/desired/parse.ts';

const PROJECT = [
  'apiVersion: opsman-gitops/v1',
  'kind: Project',
  'metadata:',
  '  name: payments-prod',
  '  projectId: 5e2211c17a3e5a48f5497de3',
  'spec:',
  '  mode: apply',
  '  auditLogRotation:',
  '    enforce: true',
  '    sizeThresholdMB: 1000',
  '    timeThresholdHrs: 24',
  '    numUncompressed: 5',
  '  alertTemplates: [baseline]',
  '  alertConfigs:',
  '    - key: no-primary',
  '      eventTypeName: NO_PRIMARY',
  '      enabled: true',
  '  prune: true',
];

/** The project with line `n` (1-based) rewritten. */
function withLine(n: number, rewrite: (line: string) => string, lines = PROJECT): string[] {
  return lines.map((line, i) => (i === n - 1 ? rewrite(line) : line));
}

function issuesOf(lines: readonly string[]): string[] {
  const { issues } = parseYamlFile('p.yaml', `${lines.join('\n')}\n`, { maxAliasCount: 100 });
  return issues.map((i) => `${i.line}:${i.column}: ${i.message}`);
}

describe('indentation errors', () => {
  it('the example parses cleanly', () => {
    expect(issuesOf(PROJECT)).toEqual([]);
  });

  it('an error YAML places in the indentation added to a line is at column 1 of it, never before', () => {
    // '.[' cuts the metadata mapping short: 'spec:' is re-indented by 2, and YAML's "All mapping items must start at
    // the same column" points into those 2 added spaces. Found by hostile-input's mutation property (was column -1).
    const lines = [
      'apiVersion: opsman-gitops/v1',
      'kind: Project',
      'metadata: {name: p, projectId: .[5e2211c17a3e5a48f5497de3}',
      'spec:',
      '  alertConfigs:',
      '    - {key: a, eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}',
    ];
    const { issues } = parseYamlFile('p.yaml', `${lines.join('\n')}\n`, { maxAliasCount: 100 });
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expect(issue.column, issue.message).toBeGreaterThanOrEqual(1);
    expect(issuesOf(lines)).toContain('4:1: YAML syntax error: All mapping items must start at the same column');
  });

  it.each([
    [
      'one space too few',
      10,
      (l: string) => l.slice(1),
      '10:4: YAML indentation error: this line is indented 3 spaces, its siblings 4; indent it 4 spaces',
    ],
    [
      'one space too many',
      10,
      (l: string) => ` ${l}`,
      '10:6: YAML indentation error: this line is indented 5 spaces, its siblings 4; indent it 4 spaces',
    ],
    [
      'a key of the document',
      7,
      (l: string) => l.slice(1),
      '7:2: YAML indentation error: this line is indented 1 space, its siblings 2; indent it 2 spaces',
    ],
    [
      'inside a sequence item',
      16,
      (l: string) => l.slice(1),
      '16:6: YAML indentation error: this line is indented 5 spaces, its siblings 6; indent it 6 spaces',
    ],
    [
      'at the top level',
      2,
      (l: string) => ` ${l}`,
      '2:2: YAML indentation error: this line is indented 1 space, its siblings are not indented; remove its indentation',
    ],
  ])('%s: one issue at the line', (_name, line, rewrite, expected) => {
    expect(issuesOf(withLine(line, rewrite))).toEqual([expected]);
  });

  it.each([
    [
      'a tab',
      7,
      '7:1: YAML indentation error: a tab is used for indentation; YAML allows spaces only (indent it 2 spaces, like its siblings)',
    ],
    [
      'two tabs',
      9,
      '9:1: YAML indentation error: a tab is used for indentation; YAML allows spaces only (indent it 4 spaces, like its siblings)',
    ],
  ])('%s: one issue at the line', (name, line, expected) => {
    const tabs = name === 'two tabs' ? '\t\t' : '\t';
    expect(issuesOf(withLine(line, (l) => tabs + l.trimStart()))).toEqual([expected]);
  });

  // A key missing its colon (or the space after it) is named at its line: found by a mutation review (h107), these
  // were each answered with a re-indentation, one of them of the correct line above.
  it.each([
    [
      'a flow mapping right after the colon',
      ['  auditLogRotation:{ enforce: true, sizeThresholdMB: 1000 }'],
      '8:19: YAML syntax error: "auditLogRotation:" is not followed by a space, so YAML reads the line as text, not a key and its value; write a space after the colon',
    ],
    [
      'the last key, below a comment',
      ['  # keep prune last', '  prune true'],
      '9:3: YAML syntax error: "prune" is not followed by ":", so YAML reads the line as text, not a key and its value (the lines around it are keys); write "prune: ..."',
    ],
    [
      'a space before the colon instead of after it',
      ['  prune :true'],
      '8:8: YAML syntax error: "prune" has a space before its ":" and none after it, so YAML reads the line as text, not a key and its value; write "prune: ..."',
    ],
    [
      // h109: answered with "remove its indentation" on the correct line above.
      'a doubled colon, as the last key',
      ['  auditLogRotation:', '    enforce: true', '  prune::true'],
      '10:9: YAML syntax error: "prune" is followed by 2 colons and no space, so YAML reads the line as text, not a key and its value; write "prune: ..." (one colon, then a space)',
    ],
    [
      // h109: YAML's error is on the next line here; answered with 3 issues, two of them re-indentations.
      'a comment after the value',
      ['  auditLogRotation:', '    enforce true  # keep it on', '    sizeThresholdMB: 1000', '  prune: true'],
      '9:5: YAML syntax error: "enforce" is not followed by ":", so YAML reads the line as text, not a key and its value (the lines around it are keys); write "enforce: ..."',
    ],
    [
      'a tripled colon',
      ['  prune:::true'],
      '8:9: YAML syntax error: "prune" is followed by 3 colons and no space, so YAML reads the line as text, not a key and its value; write "prune: ..." (one colon, then a space)',
    ],
    [
      'a doubled colon among the keys of a mapping',
      ['  auditLogRotation:', '    enforce::true', '    sizeThresholdMB: 1000', '  prune: true'],
      '9:13: YAML syntax error: "enforce" is followed by 2 colons and no space, so YAML reads the line as text, not a key and its value; write "enforce: ..." (one colon, then a space)',
    ],
  ])('%s: one issue at the line', (_name, tail, expected) => {
    expect(issuesOf([...PROJECT.slice(0, 7), ...tail])).toEqual([expected]);
  });

  // The colon (or space) written in shifts the rest of the line: an error YAML finds further on it was reported one
  // column right of where it is in the file (h109's finding).
  it.each([
    [
      'a missing colon',
      '  auditLogRotation { enforce: true, enforce: false }',
      '8:3: YAML syntax error: "auditLogRotation" is not followed by ":"',
    ],
    [
      'a missing space',
      '  auditLogRotation:{ enforce: true, enforce: false }',
      '8:19: YAML syntax error: "auditLogRotation:" is not followed by a space',
    ],
    [
      'a space before the colon',
      '  auditLogRotation :{ enforce: true, enforce: false }',
      '8:19: YAML syntax error: "auditLogRotation" has a space',
    ],
  ])('%s: an error later on the line is at its column in the file', (_name, line, first) => {
    const issues = issuesOf([...PROJECT.slice(0, 7), line, ...PROJECT.slice(12)]);
    const second = line.lastIndexOf('enforce') + 1;
    const original = line.indexOf('enforce') + 1;
    expect(issues[0]?.startsWith(first), issues[0]).toBe(true);
    expect(issues.slice(1)).toEqual([
      `8:${second}: duplicate key "enforce": each key may appear once in a mapping; the first "enforce" is on line 8, column ${original}`,
    ]);
  });

  it('a "- " written in shifts the rest of the line: an error later on it is at its column in the file', () => {
    const line = '      notifications: [{typeName: GROUP, typeName: EMAIL}]';
    const issues = issuesOf([...PROJECT.slice(0, 6), '  alertConfigs:', line, '      key: a', '    - key: c']);
    expect(issues).toEqual([
      '8:7: YAML syntax error: this line starts the list\'s first item but has no "-": the item after it (line 10) starts with "- " at column 5; write "- notifications: ..." there',
      `8:${line.lastIndexOf('typeName') + 1}: duplicate key "typeName": each key may appear once in a mapping; the first "typeName" is on line 8, column ${line.indexOf('typeName') + 1}`,
    ]);
  });

  it('a URL on its own line under the key it belongs to is a value to indent, not a key "https" missing a space', () => {
    const lines = [...PROJECT.slice(0, 7), '  runbook:', '  https://wiki.example/runbooks/payments', '  prune: true'];
    expect(issuesOf(lines)).toEqual([
      '9:3: YAML indentation error: this line is indented 2 spaces where 4 are expected; indent it 4 spaces',
    ]);
  });

  // A value of a plain list (roles, templates) written without its "-" at the column of the "-" above: re-indenting it
  // under that item parses, as one value "GROUP_OWNER GROUP_MEMBER"; the missing dash is the fix (h107's finding).
  it('a later value of a plain list without its "-" is named, not joined to the value above', () => {
    const lines = [
      ...PROJECT.slice(0, 13),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '        - typeName: GROUP',
      '          roles:',
      '            - GROUP_OWNER',
      '            GROUP_MEMBER',
      '            GROUP_READ_ONLY',
      '  prune: true',
    ];
    const dash = (line: number, above: number) =>
      `${line}:13: YAML syntax error: this line stands at the column of the "-" of the list item above it (line ${above}) but has no "-"; write "- " before it to make it the next item`;
    expect(issuesOf(lines)).toEqual([dash(21, 20), dash(22, 21)]);
    const fixed = lines.map((l, i) => (i === 20 || i === 21 ? l.replace('            ', '            - ') : l));
    expect(issuesOf(fixed)).toEqual([]);
  });

  it('a key at the column of the "-" of a plain list is re-indented to its siblings, not given a "-"', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '        - typeName: GROUP',
      '          roles:',
      '            - GROUP_OWNER',
      '            intervalMin: 5',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '14:13: YAML indentation error: this line is indented 12 spaces, its siblings 10; indent it 10 spaces',
    ]);
  });

  // Missing its colon and indented to the "-" of the item it belongs to: the correct "- typeName" line above was moved
  // to column 4 instead (h109's finding). Both mistakes are named, on the line that has them.
  it.each([
    ['the last key of the item', ['        intervalMin 5']],
    ['a key between others', ['        intervalMin 5', '          roles: [GROUP_OWNER]']],
  ])('a key missing its colon at the column of the "-" of its item: %s', (_name, tail) => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '        - typeName: GROUP',
      ...tail,
      '  prune: true',
    ];
    // In the order found: the colon first when YAML's error is on the line, else after the re-indentation.
    expect(issuesOf(lines).sort()).toEqual([
      '12:9: YAML indentation error: this line is indented 8 spaces, its siblings 10; indent it 10 spaces',
      '12:9: YAML syntax error: "intervalMin" is not followed by ":", so YAML reads the line as text, not a key and its value (the lines around it are keys); write "intervalMin: ..."',
    ]);
    expect(issuesOf(lines.map((l, i) => (i === 11 ? '          intervalMin: 5' : l)))).toEqual([]);
  });

  it('text between two items at the column of their "-" is an item without its "-", not a key of the item below', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      notifications:',
      '        - GROUP',
      '        typeName EMAIL',
      '        - typeName: EMAIL',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '11:9: YAML syntax error: this line stands at the column of the "-" of the list item above it (line 10) but has no "-"; write "- " before it to make it the next item',
    ]);
  });

  it('a key at the column of the "-" after a list is still a re-indentation, not a missing "-"', () => {
    const lines = [...PROJECT.slice(0, 17), '    prune: true'];
    expect(issuesOf(lines)).toEqual([expect.stringMatching(/^18:5: YAML indentation error: this line is indented 4 /)]);
  });

  // YAML puts its error on a blank line or comment before the next item, where no item is: the first item's missing
  // "-" was then not found, and the advice moved a line of that item out of its list (h107's finding).
  it('a first item without its "-" is found across a blank line and a comment before the next item', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '      key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '',
      '    # the second alert',
      '    - key: host-down',
      '      eventTypeName: HOST_DOWN',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '8:7: YAML syntax error: this line starts the list\'s first item but has no "-": the item after it (line 12) starts with "- " at column 5; write "- key: ..." there',
    ]);
  });

  // An item without its "-" whose key stands at the column of the "-" (its keys 2 deeper, as after "- "): re-indenting
  // the key line to its keys parses the block as a mapping, and the next "- " was then named a missing dash too, so
  // two issues on the line, the first ("indent it 6 spaces") wrong on its own (h109's finding).
  it.each([
    [
      'the first item',
      ['  alertConfigs:', '    key: no-primary', '      eventTypeName: NO_PRIMARY', '    - key: host-down'],
      '8:5: YAML syntax error: this line starts a list item but has no "-": its keys below it stand 2 columns right of it, as after a "- ", and the item after it (line 10) starts with "- " at column 5; write "- key: ..." with the "-" at column 5',
    ],
    [
      'a later item with a nested list',
      [
        '  alertConfigs:',
        '    - key: no-primary',
        '      eventTypeName: NO_PRIMARY',
        '    key: host-down',
        '      eventTypeName: HOST_DOWN',
        '      notifications:',
        '        - typeName: GROUP',
        '          intervalMin: 5',
        '',
        '    - key: too-many-elections',
      ],
      '10:5: YAML syntax error: this line starts a list item but has no "-": its keys below it stand 2 columns right of it, as after a "- ", and the item after it (line 16) starts with "- " at column 5; write "- key: ..." with the "-" at column 5',
    ],
  ])(
    'an item without its "-", its key at the column of the "-": %s is one issue at the line',
    (_name, tail, expected) => {
      const lines = [...PROJECT.slice(0, 6), ...tail, '      eventTypeName: HOST_DOWN', '  prune: true'];
      expect(issuesOf(lines)).toEqual([expected]);
      const fixed = lines.map((l) => l.replace(/^ {4}key:/, '    - key:'));
      expect(issuesOf(fixed)).toEqual([]);
    },
  );

  it('the first item without its "-" of a list written at its key\'s column is one issue at the line', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '      typeName: GROUP',
      '        intervalMin: 5',
      '      - typeName: EMAIL',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '11:7: YAML syntax error: this line starts a list item but has no "-": its keys below it stand 2 columns right of it, as after a "- ", and the item after it (line 13) starts with "- " at column 7; write "- typeName: ..." with the "-" at column 7',
    ]);
    expect(issuesOf(lines.map((l, i) => (i === 10 ? '      - typeName: GROUP' : l)))).toEqual([]);
  });

  it('a second key indented to the column of the "-" is re-indented, not taken for an item without its "-"', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '    eventTypeName: NO_PRIMARY',
      '      enabled: true',
      '    - key: host-down',
      '      eventTypeName: HOST_DOWN',
    ];
    expect(issuesOf(lines)).toEqual([
      '9:5: YAML indentation error: this line is indented 4 spaces, its siblings 6; indent it 6 spaces',
    ]);
  });

  it('a key repeated inside a flow mapping item is a duplicate key, not an item missing its "-"', () => {
    const lines = withLine(
      15,
      () => '    - { key: no-primary, eventTypeName: NO_PRIMARY, key: other }',
      PROJECT.slice(0, 15),
    );
    expect(issuesOf(lines)).toEqual([
      '15:53: duplicate key "key": each key may appear once in a mapping; the first "key" is on line 15, column 9',
    ]);
  });

  it('a file indented with tabs is one issue listing its lines, with the width that makes it parse', () => {
    const lines = PROJECT.slice(0, 12).map((l) => l.replace(/^(?: {2})+/, (m) => '\t'.repeat(m.length / 2)));
    expect(issuesOf(lines)).toEqual([
      '4:1: YAML indentation error: 8 lines are indented with tabs (lines 4-5 and 7-12); YAML allows spaces only: replace each tab with 2 spaces',
    ]);
  });

  it('a whole project indented with tabs: one issue, not ten findings followed by YAML cascade errors', () => {
    const alerts = Array.from({ length: 12 }, (_, i) => [
      `    - key: alert-${i}`,
      '      eventTypeName: NO_PRIMARY',
      '      enabled: true',
    ]).flat();
    const lines = [...PROJECT.slice(0, 15), ...alerts, '  prune: true'].map((l) =>
      l.replace(/^(?: {2})+/, (m) => '\t'.repeat(m.length / 2)),
    );
    const issues = issuesOf(lines);
    expect(issues).toEqual([
      '4:1: YAML indentation error: 48 lines are indented with tabs (lines 4-5 and 7-52); YAML allows spaces only: replace each tab with 2 spaces',
    ]);
  });

  it('tabs standing for 4 spaces among lines indented 4 spaces are replaced by 4', () => {
    const four = PROJECT.slice(0, 12).map((l) => l.replace(/^(?: {2})+/, (m) => ' '.repeat(m.length * 2)));
    const lines = four.map((l, i) => ([3, 4, 6, 11].includes(i) ? l.replace(/^ {4}/, '\t') : l));
    expect(four.filter((l) => l.startsWith('        ')).length).toBeGreaterThan(0);
    expect(issuesOf(lines)).toEqual([
      '4:1: YAML indentation error: 4 lines are indented with tabs (lines 4-5, 7 and 12); YAML allows spaces only: replace each tab with 4 spaces',
    ]);
  });

  it('the tab summary points at the first tab when it follows spaces, and lists six ranges then a count', () => {
    const afterSpaces = PROJECT.slice(0, 12).map((l, i) => (i >= 8 ? l.replace(/^ {4}/, '  \t') : l));
    expect(issuesOf(afterSpaces)).toEqual([
      '9:3: YAML indentation error: 4 lines are indented with tabs (lines 9-12); YAML allows spaces only: replace each tab with 2 spaces',
    ]);
    const items = Array.from({ length: 8 }, (_, i) => [`    - key: k${i}`, '\t\t\teventTypeName: NO_PRIMARY']).flat();
    expect(issuesOf([...PROJECT.slice(0, 14), ...items])).toEqual([
      '16:1: YAML indentation error: 8 lines are indented with tabs (lines 16, 18, 20, 22, 24, 26 and 2 more); YAML allows spaces only: replace each tab with 2 spaces',
    ]);
  });

  it('after the tabs, a separate error is still reported at its own line and column', () => {
    let lines = PROJECT.map((l) => l.replace(/^(?: {2})+/, (m) => '\t'.repeat(m.length / 2)));
    lines = withLine(18, () => '\tprune: [true', lines);
    expect(issuesOf(lines)).toEqual([
      '4:1: YAML indentation error: 14 lines are indented with tabs (lines 4-5 and 7-18); YAML allows spaces only: replace each tab with 2 spaces',
      expect.stringMatching(/^19:1: YAML syntax error: Flow sequence/),
    ]);
  });

  it('a tab after the indentation of a block scalar is its text, not indentation', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  description: |',
      '    first line',
      '    \tindented text',
      '    \tmore text',
      '\tmode: apply',
      '\tprune: true',
    ];
    expect(issuesOf(lines)).not.toContainEqual(expect.stringContaining('lines are indented with tabs'));
    expect(issuesOf(lines)[0]).toMatch(/^11:1: YAML indentation error: a tab is used for indentation/);
  });

  it('points at the tab when it follows spaces', () => {
    expect(issuesOf(withLine(10, (l) => `  \t${l.trimStart()}`))).toEqual([
      '10:3: YAML indentation error: a tab is used for indentation; YAML allows spaces only (indent it 4 spaces, like its siblings)',
    ]);
  });

  it('reports every wrong line and keeps the errors indentation does not explain', () => {
    let lines = withLine(10, (l) => l.slice(1));
    lines = withLine(17, (l) => `\t${l.trimStart()}`, lines);
    lines = withLine(18, () => '  prune: [true', lines);
    expect(issuesOf(lines)).toEqual([
      '10:4: YAML indentation error: this line is indented 3 spaces, its siblings 4; indent it 4 spaces',
      '17:1: YAML indentation error: a tab is used for indentation; YAML allows spaces only (indent it 6 spaces, like its siblings)',
      expect.stringMatching(/^19:1: YAML syntax error: Flow sequence/),
    ]);
  });

  it('keeps the original column of an error on a re-indented line', () => {
    const lines = withLine(7, () => ' prune: false');
    expect(issuesOf(lines)).toEqual([
      '7:2: YAML indentation error: this line is indented 1 space, its siblings 2; indent it 2 spaces',
      '18:3: duplicate key "prune": each key may appear once in a mapping; the first "prune" is on line 7, column 2',
    ]);
  });

  it('reports every tabbed line of a long list, not the cascade after the second (putting one right can raise the count)', () => {
    const head = PROJECT.slice(0, 13);
    const items = Array.from({ length: 30 }, (_, i) => [
      `    - key: k${i}`,
      '      eventTypeName: NO_PRIMARY',
      '      enabled: true',
    ]).flat();
    const lines = [...head, '  alertConfigs:', ...items].map((l, i) =>
      [14, 44, 74].includes(i) ? `\t${l.trimStart()}` : l,
    );
    const tab =
      'YAML indentation error: a tab is used for indentation; YAML allows spaces only (indent it 4 spaces, like its siblings)';
    expect(issuesOf(lines)).toEqual([`15:1: ${tab}`, `45:1: ${tab}`, `75:1: ${tab}`]);
  });

  // A config pasted from an example indented otherwise: the first item at column 3, the pasted ones at column 5. No one
  // line re-indented explains it, and YAML's own "A block sequence may not be used as an implicit map key" was shown.
  it('a list item indented unlike the item before it is one issue naming the lines to move', () => {
    const lines = [
      ...PROJECT.slice(0, 13),
      '  alertConfigs:',
      '  - key: first',
      '    eventTypeName: HOST_DOWN',
      '    - key: pasted',
      '      eventTypeName: NO_PRIMARY',
      '      enabled: true',
      '    - key: pasted-too',
      '      eventTypeName: HOST_DOWN',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '17:5: YAML indentation error: this list item is indented 4 spaces, the item before it (line 15) 2; items of one list start at the same column: indent lines 17-21 2 spaces less',
    ]);
    const fixed = lines.map((l, i) => (i >= 16 && i <= 20 ? l.slice(2) : l));
    expect(issuesOf(fixed)).toEqual([]);
  });

  // Review finding: moving the notification item (line 11) to the column of `notifications:` also parses (a compact
  // list), so the advice was "line 11 ... indent it 6 spaces", which moves a correct line and makes the second alert
  // config a notification. The item YAML complains about, with its lines, is the one to move, to its list's column.
  it('an alert config indented one level too deep after a nested notifications list names that item, not the list above', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '        - { typeName: GROUP, intervalMin: 5, delayMin: 0, roles: [GROUP_OWNER] }',
      '      - key: host-down',
      '        eventTypeName: HOST_DOWN',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '12:7: YAML indentation error: this list item is indented 6 spaces, the item before it (line 8) 4; items of one list start at the same column: indent lines 12-13 2 spaces less',
    ]);
    const fixed = lines.map((l, i) => (i === 11 || i === 12 ? l.slice(2) : l));
    expect(issuesOf(fixed)).toEqual([]);
  });

  // Same, after a notification written as a block: moving the item into the notifications list (then each of its lines
  // one by one) made five findings, none of them right.
  it('an alert config block too deep after a block notification: one finding moving the block', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '      notifications:',
      '        - typeName: SLACK',
      '          channelName: "#payments-alerts"',
      '          delayMin: 0',
      '      - key: primary-connections-high',
      '        eventTypeName: OUTSIDE_METRIC_THRESHOLD',
      '        matchers:',
      '          - { fieldName: TYPE_NAME, operator: EQUALS, value: PRIMARY }',
      '        metricThreshold:',
      '          metricName: CONNECTIONS',
      '          threshold: 5000',
      '        notifications:',
      '          - { typeName: GROUP, roles: [GROUP_OWNER] }',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '14:7: YAML indentation error: this list item is indented 6 spaces, the item before it (line 8) 4; items of one list start at the same column: indent lines 14-22 2 spaces less',
    ]);
    const fixed = lines.map((l, i) => (i >= 13 && i <= 21 ? l.slice(2) : l));
    expect(issuesOf(fixed)).toEqual([]);
  });

  // The other way: an item indented one level too little is moved up to its list, but the next item, already in place,
  // is not moved with it (it was, and then reported as a second wrong item).
  it('an alert config block indented too little: the block, not the next item that is in place', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      eventTypeName: NO_PRIMARY',
      '  - key: host-down',
      '    eventTypeName: HOST_DOWN',
      '    - key: disk',
      '      eventTypeName: HOST_DOWN',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '10:3: YAML indentation error: this list item is indented 2 spaces, the item before it (line 8) 4; items of one list start at the same column: indent lines 10-11 2 spaces more',
    ]);
  });

  it('only the item line too deep after a nested list: that line, with its siblings column', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      notifications:',
      '        - typeName: GROUP',
      '          intervalMin: 5',
      '      - key: host-down',
      '      eventTypeName: HOST_DOWN',
      '  prune: true',
    ];
    expect(issuesOf(lines)).toEqual([
      '12:7: YAML indentation error: this line is indented 6 spaces, its siblings 4; indent it 4 spaces',
    ]);
  });

  // The other way round stays as it was: a nested item indented too deep is that item, not the one below it.
  it('a nested list item too deep is still named itself', () => {
    const lines = [
      ...PROJECT.slice(0, 6),
      '  alertConfigs:',
      '    - key: no-primary',
      '      notifications:',
      '          - { typeName: GROUP, roles: [GROUP_OWNER] }',
      '        - { typeName: EMAIL, emailAddress: a@b.example }',
      '  prune: true',
    ];
    expect(issuesOf(lines)[0]).toMatch(/^10:11: YAML indentation error: .*indent it 8 spaces$/);
  });

  it('finds each wrong line in its own document', () => {
    const lines = [...withLine(10, (l) => ` ${l}`), '---', ...withLine(16, (l) => ` ${l}`)];
    expect(issuesOf(lines)).toEqual([
      '10:6: YAML indentation error: this line is indented 5 spaces, its siblings 4; indent it 4 spaces',
      '35:8: YAML indentation error: this line is indented 7 spaces, its siblings 6; indent it 6 spaces',
    ]);
  });

  // Inside a block scalar or a flow collection indentation means something else: no advice that would move a key
  // into a description's text, or split an open [ ... ] the wrong way.
  it('never makes a mis-indented key part of a block scalar above it', () => {
    const lines = [
      ...PROJECT.slice(0, 4),
      '  description: |',
      '      payments, production',
      '      on-call: dba',
      ' projectId: 5e2211c17a3e5a48f5497de3',
      ...PROJECT.slice(5),
    ];
    expect(issuesOf(lines)).toEqual([
      '8:2: YAML indentation error: this line is indented 1 space, its siblings 2; indent it 2 spaces',
    ]);
  });

  it('leaves an error inside an open flow collection to YAML', () => {
    const lines = [...PROJECT.slice(0, 12), '  alertTemplates: [baseline,', ' other]', ...PROJECT.slice(13)];
    const issues = issuesOf(lines);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.join('\n')).not.toContain('indentation error');
    expect(issues[0]).toMatch(/^14:2: YAML syntax error: Flow sequence/);
  });
});

// A key with a value on its line and a block under it holds one or the other: named on the key line, never answered by
// moving the block out (the list into the alert configs, the spec's keys to the top level). Only a field the schema
// makes a mapping or a list counts; one line too deep, and a block scalar, are no such key; the value is never quoted.
describe('a key with a value and a block under it', () => {
  const notifications = (first: string) => [
    ...PROJECT.slice(0, 17),
    first,
    '        - typeName: GROUP',
    '          roles: [GROUP_OWNER]',
    ...PROJECT.slice(17),
  ];

  it.each([
    [
      'a list under a notification key with a value',
      notifications('      notifications: PAGER'),
      '18:22: YAML syntax error: "notifications" has a value on its line and 2 lines indented under it (lines 19-20); a key holds one or the other: remove the value after "notifications:", or move those lines out from under it',
    ],
    [
      'the same with a comment after the value',
      notifications('      notifications: PAGER # on call'),
      '18:22: YAML syntax error: "notifications" has a value on its line and 2 lines indented under it (lines 19-20); a key holds one or the other: remove the value after "notifications:", or move those lines out from under it',
    ],
    [
      'the spec key with a value',
      withLine(6, () => 'spec: x'),
      '6:7: YAML syntax error: "spec" has a value on its line and 12 lines indented under it (lines 7-18); a key holds one or the other: remove the value after "spec:", or move those lines out from under it',
    ],
  ])('%s', (_what, lines, expected) => {
    expect(issuesOf(lines)).toEqual([expected]);
  });

  it('a plain field with lines under it is left to the indentation search (its siblings are too deep)', () => {
    const lines = withLine(7, () => ' mode: apply');
    expect(issuesOf(lines)).toEqual([
      '7:2: YAML indentation error: this line is indented 1 space, its siblings 2; indent it 2 spaces',
    ]);
  });

  it('one line too deep under a key with a value is no value-and-block finding', () => {
    const lines = [
      ...PROJECT.slice(0, 17),
      '      notifications: PAGER',
      '        - typeName: GROUP',
      ...PROJECT.slice(17),
    ];
    expect(issuesOf(lines).join('\n')).not.toContain('has a value on its line');
  });

  it('a block scalar opening the block is no such key, and the value is never quoted', () => {
    const scalar = [
      ...PROJECT.slice(0, 4),
      '  description: |',
      '      payments',
      '      production',
      ...PROJECT.slice(4),
    ];
    expect(issuesOf(scalar).join('\n')).not.toContain('has a value on its line');
    const secretish = withLine(6, () => 'spec: hunter2-not-a-key');
    const issues = issuesOf(secretish);
    expect(issues[0]).toContain('"spec" has a value on its line');
    expect(issues.join('\n')).not.toContain('hunter2');
  });
});

// The only item of a list written without its "-", keys two columns right of it: nothing after it shows it was an item,
// but the schema makes alertConfigs a list, so the missing dash is named, not the line re-indented into a mapping.
describe('the only item of a list without its "-"', () => {
  const only = (first: string) => [
    ...PROJECT.slice(0, 13),
    '  alertConfigs:',
    first,
    '      eventTypeName: HOST_DOWN',
    '      notifications:',
    '        - typeName: GROUP',
    '          roles: [GROUP_OWNER]',
    '  prune: true',
  ];

  it('is named when the key above holds a list', () => {
    expect(issuesOf(only('    key: host-down'))).toEqual([
      '15:5: YAML syntax error: this line starts a list item but has no "-": its keys below it stand 2 columns right of it, as after a "- ", and "alertConfigs" above it holds a list; write "- key: ..." with the "-" at column 5',
    ]);
  });

  it('is left to the indentation search under a key that holds a mapping', () => {
    const lines = [
      ...PROJECT.slice(0, 7),
      '  auditLogRotation:',
      '    enforce: true',
      '      sizeThresholdMB: 1000',
      '      timeThresholdHrs: 24',
      ...PROJECT.slice(12),
    ];
    expect(issuesOf(lines).join('\n')).not.toContain('no "-"');
  });
});
