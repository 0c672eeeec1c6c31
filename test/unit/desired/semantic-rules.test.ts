// Scenario: each semantic rule of the desired-state format, table-driven: a minimal breaking input and the issue it gives.
import { describe, expect, it } from 'vitest';
import { loadDesiredState, type ValidationIssue } from '../../../lambdas/core/desired/index.ts';
import { MemorySource, projectYaml } from './memory-source.ts';

const ORG =
  'apiVersion: opsman-gitops/v1\nkind: Organization\nmetadata: {name: acme, orgId: 5e2211c17a3e5a48f5497de0}\nspec: {}\n';

/** An AlertTemplate named `name` with one alert config. */
const TEMPLATE = (name: string) =>
  `apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: ${name}}\nspec:\n  alertConfigs:\n    - {key: k, eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}\n`;

/** A project (line 8 is the first alert config's `- key:` line, line 11 its first notification) with one alert config built from `body` lines. */
function withAlert(body: string, extraSpec = ''): string {
  return projectYaml(`  alertConfigs:\n    - key: a1\n${body}${extraSpec}`);
}

function notification(fields: string, event = 'HOST_DOWN'): string {
  return withAlert(`      eventTypeName: ${event}\n      notifications:\n        - {${fields}}\n`);
}

async function issuesOf(files: Record<string, string>): Promise<ValidationIssue[]> {
  const result = await loadDesiredState(new MemorySource(files));
  return result.ok ? [] : result.issues;
}

interface Case {
  rule: string;
  files: Record<string, string>;
  /** Expected single issue: file, line, path and a fragment of the message. */
  want: { file: string; line: number; path: string; message: string };
}

const NOTIFY_PATH = 'spec.alertConfigs[0].notifications[0]';

/** Type, the field its case leaves out, and the other required fields it gives. */
const REQUIRED: [string, string, string][] = [
  ['EMAIL', 'emailAddress', ''],
  ['SMS', 'mobileNumber', ''],
  ['USER', 'username', ''],
  ['TEAM', 'teamId', ''],
  ['WEBHOOK', 'webhookUrl', ''],
  ['SLACK', 'apiToken', ', channelName: x'],
  ['SLACK', 'channelName', ', apiToken: {secretRef: "s#k"}'],
  ['PAGER_DUTY', 'serviceKey', ''],
  ['DATADOG', 'datadogApiKey', ''],
  ['OPS_GENIE', 'opsGenieApiKey', ''],
  ['VICTOR_OPS', 'victorOpsApiKey', ', victorOpsRoutingKey: {secretRef: "s#r"}'],
  ['VICTOR_OPS', 'victorOpsRoutingKey', ', victorOpsApiKey: {secretRef: "s#k"}'],
  ['HIPCHAT', 'notificationToken', ', roomName: r'],
  ['HIPCHAT', 'roomName', ', notificationToken: {secretRef: "s#k"}'],
  ['MICROSOFT_TEAMS', 'microsoftTeamsWebhookUrl', ''],
];

const requiredCases: Case[] = REQUIRED.map(([type, field, others]) => ({
  rule: `${type} requires ${field}`,
  files: {
    'p.yaml': notification(`typeName: ${type}${others}`).replace(
      'name: p1\n',
      'name: p1\n  orgId: 5e2211c17a3e5a48f5497de0\n',
    ),
  },
  want: {
    file: 'p.yaml',
    line: 12,
    path: NOTIFY_PATH,
    message: `missing ${field}: ${type} notifications need ${field}`,
  },
}));

const cases: Case[] = [
  ...requiredCases,
  // The schema's own bounds, each at its value (the published schema file alone would not notice one dropped).
  {
    rule: 'emailAddress is an email address',
    files: { 'p.yaml': notification('typeName: EMAIL, emailAddress: ops.example.com') },
    want: { file: 'p.yaml', line: 11, path: `${NOTIFY_PATH}.emailAddress`, message: 'must be an email address' },
  },
  {
    rule: 'a matcher needs a value',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      matchers: [{fieldName: HOSTNAME, operator: EQUALS}]\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 10,
      path: 'spec.alertConfigs[0].matchers[0].value',
      message: 'missing required field "value" in spec.alertConfigs[0].matchers[0]',
    },
  },
  {
    rule: 'a metricThreshold needs its threshold',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      metricThreshold: {metricName: CONNECTIONS, operator: GREATER_THAN}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 10,
      path: 'spec.alertConfigs[0].metricThreshold.threshold',
      message: 'missing required field "threshold" in spec.alertConfigs[0].metricThreshold',
    },
  },
  {
    rule: 'free text is not empty',
    files: { 'p.yaml': notification('typeName: SLACK, apiToken: {secretRef: "s#k"}, channelName: ""') },
    want: { file: 'p.yaml', line: 11, path: `${NOTIFY_PATH}.channelName`, message: 'channelName must not be empty' },
  },
  {
    rule: 'a name has at most 63 characters',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ).replace('key: a1', `key: ${'k'.repeat(64)}`),
    },
    want: { file: 'p.yaml', line: 8, path: 'spec.alertConfigs[0].key', message: 'at most 63 characters' },
  },
  {
    rule: 'a weekly window opens at 23:59 at the latest',
    files: {
      'o.yaml': ORG,
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  changeWindows:\n    - {name: w, kind: deny, days: [Sat], start: "24:00", end: "23:00"}\n',
    },
    want: { file: 's.yaml', line: 6, path: 'spec.changeWindows[0].start', message: 'a time HH:MM from 00:00 to 23:59' },
  },
  {
    rule: 'a document has a spec',
    files: { 'o.yaml': ORG.replace('spec: {}\n', '') },
    want: { file: 'o.yaml', line: 1, path: 'spec', message: 'missing required field "spec" in the document' },
  },
  {
    rule: 'a project has metadata',
    files: { 'o.yaml': ORG, 'p.yaml': 'apiVersion: opsman-gitops/v1\nkind: Project\nspec: {}\n' },
    want: { file: 'p.yaml', line: 1, path: 'metadata', message: 'missing required field "metadata" in the document' },
  },
  {
    rule: 'a project lists a template once',
    files: { 't.yaml': TEMPLATE('base'), 'p.yaml': projectYaml('  alertTemplates: [base, base]\n') },
    want: {
      file: 'p.yaml',
      line: 7,
      path: 'spec.alertTemplates[1]',
      message: 'spec.alertTemplates lists "base" twice',
    },
  },
  {
    rule: 'a template has alert configs',
    files: {
      'o.yaml': ORG,
      't.yaml':
        'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: base}\nspec:\n  alertConfigs: []\n',
    },
    want: { file: 't.yaml', line: 5, path: 'spec.alertConfigs', message: 'spec.alertConfigs must not be empty' },
  },
  {
    rule: 'maxDeletes is not negative',
    files: {
      'o.yaml': ORG,
      's.yaml': 'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  prune: {maxDeletes: -1}\n',
    },
    want: { file: 's.yaml', line: 5, path: 'spec.prune.maxDeletes', message: 'must be at least 0; found -1' },
  },
  {
    rule: 'a change window lists a project once',
    files: {
      'p.yaml': projectYaml('  prune: true\n'),
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  changeWindows:\n    - name: w\n      kind: deny\n      days: [Sat]\n      start: "09:00"\n      end: "17:00"\n      projects: [5e2211c17a3e5a48f5497de3, 5e2211c17a3e5a48f5497de3]\n',
    },
    want: {
      file: 's.yaml',
      line: 11,
      path: 'spec.changeWindows[0].projects[1]',
      message: 'lists "5e2211c17a3e5a48f5497de3" twice',
    },
  },
  // One mistake, one issue: a value of the wrong type is not also out of bounds, and a rule the schema states twice
  // (metadata is a mapping, and a Project's metadata is one) is broken once.
  {
    rule: 'a negative fraction where a whole number belongs is reported as not whole only',
    files: { 'p.yaml': notification('typeName: GROUP, delayMin: -1.5') },
    want: { file: 'p.yaml', line: 11, path: `${NOTIFY_PATH}.delayMin`, message: 'must be a whole number; found -1.5' },
  },
  {
    rule: 'metadata written as text is reported once',
    files: { 'p.yaml': 'apiVersion: opsman-gitops/v1\nkind: Project\nmetadata: p1\nspec: {}\n' },
    want: { file: 'p.yaml', line: 3, path: 'metadata', message: 'metadata must be a mapping; found "p1"' },
  },
  {
    rule: 'a change window written as text is a schema issue only',
    files: {
      'o.yaml': ORG,
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  changeWindows:\n    - freeze\n',
    },
    want: {
      file: 's.yaml',
      line: 6,
      path: 'spec.changeWindows[0]',
      message: 'spec.changeWindows[0] must be a mapping; found "freeze"',
    },
  },
  {
    rule: 'a window project id in upper case is a schema issue only',
    files: {
      'p.yaml': projectYaml('  prune: true\n'),
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  changeWindows:\n    - {name: w, kind: deny, days: [Sat], start: "09:00", end: "17:00", projects: [5E2211C17A3E5A48F5497DE3]}\n',
    },
    want: {
      file: 's.yaml',
      line: 6,
      path: 'spec.changeWindows[0].projects[0]',
      message: 'did you mean "5e2211c17a3e5a48f5497de3"? (ids are written in lower case)',
    },
  },
  {
    rule: 'a change window says its kind (never a deny by default)',
    files: {
      'o.yaml': ORG,
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  changeWindows:\n    - {name: w, days: [Sat], start: "09:00", end: "17:00"}\n',
    },
    want: {
      file: 's.yaml',
      line: 6,
      path: 'spec.changeWindows[0].kind',
      message: 'missing required field "kind" in spec.changeWindows[0]',
    },
  },
  {
    rule: 'intervalMin at least 5',
    files: { 'p.yaml': notification('typeName: EMAIL, emailAddress: a@b.example, intervalMin: 4') },
    want: { file: 'p.yaml', line: 11, path: `${NOTIFY_PATH}.intervalMin`, message: 'must be at least 5; found 4' },
  },
  // Ops Manager holds both in a Java int and refuses more at apply time (400 INVALID_JSON_ATTRIBUTE).
  ...['intervalMin', 'delayMin'].map(
    (field): Case => ({
      rule: `${field} at most 2147483647`,
      files: { 'p.yaml': notification(`typeName: EMAIL, emailAddress: a@b.example, ${field}: 2147483648`) },
      want: {
        file: 'p.yaml',
        line: 11,
        path: `${NOTIFY_PATH}.${field}`,
        message: 'must be at most 2147483647; found 2147483648',
      },
    }),
  ),
  ...['PAGER_DUTY serviceKey', 'OPS_GENIE opsGenieApiKey', 'VICTOR_OPS victorOpsApiKey'].map((spec): Case => {
    const [type, field] = spec.split(' ') as [string, string];
    const routing = type === 'VICTOR_OPS' ? ', victorOpsRoutingKey: {secretRef: "s#r"}' : '';
    return {
      rule: `no intervalMin on ${type}`,
      files: { 'p.yaml': notification(`typeName: ${type}, ${field}: {secretRef: "s#k"}${routing}, intervalMin: 5`) },
      want: {
        file: 'p.yaml',
        line: 11,
        path: `${NOTIFY_PATH}.intervalMin`,
        message: `intervalMin must not be set on ${type} notifications`,
      },
    };
  }),
  {
    rule: 'roles only on GROUP and ORG',
    files: { 'p.yaml': notification('typeName: USER, username: u, roles: [GROUP_OWNER]') },
    want: {
      file: 'p.yaml',
      line: 11,
      path: `${NOTIFY_PATH}.roles`,
      message: 'roles does not apply to USER notifications',
    },
  },
  {
    rule: 'role only on GROUP and ORG',
    files: { 'p.yaml': notification('typeName: SMS, mobileNumber: "+1555", role: GROUP_OWNER') },
    want: {
      file: 'p.yaml',
      line: 11,
      path: `${NOTIFY_PATH}.role`,
      message: 'role does not apply to SMS notifications',
    },
  },
  {
    rule: 'ORG takes organization roles',
    files: { 'p.yaml': notification('typeName: ORG, role: GROUP_OWNER') },
    want: {
      file: 'p.yaml',
      line: 11,
      path: `${NOTIFY_PATH}.role`,
      message: 'role GROUP_OWNER does not apply to ORG notifications',
    },
  },
  {
    rule: 'metricThreshold required for OUTSIDE_METRIC_THRESHOLD',
    files: { 'p.yaml': notification('typeName: GROUP, roles: [GROUP_OWNER]', 'OUTSIDE_METRIC_THRESHOLD') },
    want: { file: 'p.yaml', line: 8, path: 'spec.alertConfigs[0]', message: 'missing metricThreshold' },
  },
  {
    rule: 'metricThreshold only for OUTSIDE_METRIC_THRESHOLD',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      metricThreshold: {metricName: CONNECTIONS, operator: GREATER_THAN, threshold: 1}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 10,
      path: 'spec.alertConfigs[0].metricThreshold',
      message: 'metricThreshold is only for',
    },
  },
  {
    rule: 'threshold required for TOO_MANY_UNHEALTHY_MEMBERS',
    files: { 'p.yaml': notification('typeName: GROUP, roles: [GROUP_OWNER]', 'TOO_MANY_UNHEALTHY_MEMBERS') },
    want: { file: 'p.yaml', line: 8, path: 'spec.alertConfigs[0]', message: 'missing threshold' },
  },
  {
    rule: 'threshold only for member-count events',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: NO_PRIMARY\n      threshold: {operator: LESS_THAN, threshold: 1}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: { file: 'p.yaml', line: 10, path: 'spec.alertConfigs[0].threshold', message: 'threshold is only for' },
  },
  {
    rule: 'a TYPE_NAME matcher with NOT_EQUALS compares with a known type',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      matchers: [{fieldName: TYPE_NAME, operator: NOT_EQUALS, value: SECUNDARY}]\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 10,
      path: 'spec.alertConfigs[0].matchers[0].value',
      message:
        'a TYPE_NAME matcher compares with one of PRIMARY, SECONDARY, STANDALONE, CONFIG, MONGOS; found "SECUNDARY"; did you mean "SECONDARY"?',
    },
  },
  {
    // Both members given: the extra one is what is wrong, not a threshold written under the other's name.
    rule: 'threshold beside metricThreshold is only for member-count events',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      metricThreshold: {metricName: CONNECTIONS, operator: GREATER_THAN, threshold: 1}\n      threshold: {operator: GREATER_THAN, threshold: 1}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 11,
      path: 'spec.alertConfigs[0].threshold',
      message:
        'threshold is only for TOO_FEW_HEALTHY_MEMBERS and TOO_MANY_UNHEALTHY_MEMBERS; event type OUTSIDE_METRIC_THRESHOLD takes none',
    },
  },
  {
    rule: 'unknown eventTypeName with did-you-mean',
    files: { 'p.yaml': notification('typeName: GROUP, roles: [GROUP_OWNER]', 'HOST_DOWNN') },
    want: { file: 'p.yaml', line: 9, path: 'spec.alertConfigs[0].eventTypeName', message: 'did you mean "HOST_DOWN"?' },
  },
  {
    // Which threshold member a misspelt event type takes is unknown: not also "metricThreshold is only for ...".
    rule: 'a misspelt OUTSIDE_METRIC_THRESHOLD with its metricThreshold is one issue, the event type',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: OUTSIDE_METRIC_THRESHOLDS\n      metricThreshold: {metricName: CONNECTIONS, operator: GREATER_THAN, threshold: 1}\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 9,
      path: 'spec.alertConfigs[0].eventTypeName',
      message: 'did you mean "OUTSIDE_METRIC_THRESHOLD"?',
    },
  },
  {
    rule: 'a misspelt TOO_FEW_HEALTHY_MEMBERS with its threshold and ignoreFields is one issue, the event type',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: TOO_FEW_HEALTHY_MEMBER\n      threshold: {operator: LESS_THAN, threshold: 2}\n      ignoreFields: [threshold]\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 9,
      path: 'spec.alertConfigs[0].eventTypeName',
      message: 'did you mean "TOO_FEW_HEALTHY_MEMBERS"?',
    },
  },
  {
    rule: 'secretRef of the form id#key',
    files: { 'p.yaml': notification('typeName: PAGER_DUTY, serviceKey: {secretRef: "no-key"}') },
    want: {
      file: 'p.yaml',
      line: 11,
      path: `${NOTIFY_PATH}.serviceKey.secretRef`,
      message: 'must be a secret reference "<secret id>#<json key>"',
    },
  },
  {
    rule: 'projectId is 24 hex',
    files: { 'p.yaml': projectYaml('  prune: true\n', 'name: p1\n  projectId: 5e2211c17a3e5a48f5497de') },
    want: { file: 'p.yaml', line: 5, path: 'metadata.projectId', message: '24 lowercase hexadecimal characters' },
  },
  // A first project file with the organization's id where the project id goes passed validation and failed only at
  // plan time with Ops Manager's GROUP_NOT_FOUND.
  {
    rule: "projectId is not the project's own orgId",
    files: {
      'p.yaml': projectYaml(
        '  prune: true\n',
        'name: p1\n  projectId: 5e2211c17a3e5a48f5497de0\n  orgId: 5e2211c17a3e5a48f5497de0',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 5,
      path: 'metadata.projectId',
      message: "metadata.projectId 5e2211c17a3e5a48f5497de0 is the same id as this project's metadata.orgId",
    },
  },
  {
    rule: 'projectId is not the orgId of an Organization',
    files: {
      'a.yaml': ORG,
      'p.yaml': projectYaml('  prune: true\n', 'name: p1\n  projectId: 5e2211c17a3e5a48f5497de0'),
    },
    want: {
      file: 'p.yaml',
      line: 5,
      path: 'metadata.projectId',
      message:
        'is the orgId of organization acme (a.yaml:3): a project and an organization never share an id, so one of the two is the wrong id',
    },
  },
  {
    rule: 'projectId is not the orgId another project names',
    files: {
      'a.yaml': projectYaml('  prune: true\n', 'name: p1\n  projectId: 5e2211c17a3e5a48f5497de0'),
      'b.yaml': projectYaml(
        '  prune: true\n',
        'name: p2\n  projectId: 5e2211c17a3e5a48f5497de4\n  orgId: 5e2211c17a3e5a48f5497de0',
      ),
    },
    want: { file: 'a.yaml', line: 5, path: 'metadata.projectId', message: 'is the orgId of project p2 (b.yaml:6)' },
  },
  {
    rule: 'TEAM notifications need metadata.orgId',
    files: { 'p.yaml': notification('typeName: TEAM, teamId: 6a1f00000000000000000001') },
    want: { file: 'p.yaml', line: 3, path: 'metadata', message: 'metadata.orgId is required' },
  },
  {
    rule: 'unique projectId across files',
    files: {
      'a.yaml': projectYaml('  prune: true\n'),
      'b.yaml': projectYaml('  prune: true\n', 'name: p2\n  projectId: 5e2211c17a3e5a48f5497de3'),
    },
    want: { file: 'b.yaml', line: 5, path: 'metadata.projectId', message: 'already declared at a.yaml:5' },
  },
  {
    rule: 'unique orgId across files',
    files: { 'a.yaml': ORG, 'b.yaml': ORG.replace('name: acme', 'name: acme2') },
    want: { file: 'b.yaml', line: 3, path: 'metadata.orgId', message: 'duplicate orgId 5e2211c17a3e5a48f5497de0' },
  },
  {
    rule: 'unique organization name across files',
    files: { 'a.yaml': ORG, 'b.yaml': ORG.replace('de0', 'de9') },
    want: { file: 'b.yaml', line: 3, path: 'metadata.name', message: 'duplicate organization name acme' },
  },
  {
    rule: 'unique template name across files',
    files: { 'a.yaml': TEMPLATE('baseline'), 'b.yaml': TEMPLATE('baseline'), 'o.yaml': ORG },
    want: { file: 'b.yaml', line: 3, path: 'metadata.name', message: 'duplicate template name baseline' },
  },
  {
    rule: 'unique alert keys in a project',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n    - key: a1\n      eventTypeName: NO_PRIMARY\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: { file: 'p.yaml', line: 11, path: 'spec.alertConfigs[1].key', message: 'duplicate alert key "a1"' },
  },
  {
    rule: 'unknown template with did-you-mean',
    files: {
      'p.yaml': projectYaml('  alertTemplates: [baselin]\n'),
      't.yaml':
        'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: baseline}\nspec:\n  alertConfigs:\n    - {key: k, eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}\n',
    },
    want: { file: 'p.yaml', line: 7, path: 'spec.alertTemplates[0]', message: 'did you mean "baseline"?' },
  },
  {
    rule: 'protect keys exist',
    files: { 'p.yaml': projectYaml('  protect: [nothing-here]\n') },
    want: { file: 'p.yaml', line: 7, path: 'spec.protect[0]', message: 'protect names "nothing-here"' },
  },
  {
    rule: 'a released key is not declared in alertConfigs',
    files: {
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
        '  release: [gone, a1]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 11,
      path: 'spec.release[1]',
      message: 'release names "a1", which is also a declared alert key of project p1, declared at p.yaml:8',
    },
  },
  {
    rule: 'a released key is not declared through a template',
    files: {
      'p.yaml': projectYaml('  alertTemplates: [baseline]\n  release: [k]\n'),
      't.yaml':
        'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: baseline}\nspec:\n  alertConfigs:\n    - {key: k, eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}\n',
    },
    want: {
      file: 'p.yaml',
      line: 8,
      path: 'spec.release[0]',
      message:
        'release names "k", which is also a declared alert key of project p1, declared at t.yaml:6 (from template baseline): remove it from alertConfigs (or from the template, or the template from alertTemplates) to stop managing it, or from release to keep managing it; a template is shared: every project listing baseline stops declaring "k" too, and deletes its config where prune is on unless it lists "k" in its own spec.release',
    },
  },
  {
    rule: 'renamedFrom names a key that left git, not one still declared',
    files: {
      'p.yaml': projectYaml(
        '  alertConfigs:\n    - key: a1\n      renamedFrom: [a2]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n    - key: a2\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 9,
      path: 'spec.alertConfigs[0].renamedFrom[0]',
      message:
        'alert key "a1" is renamed from "a2", but project p1 still declares "a2" at p.yaml:12: a key is renamed from one that left git, so remove the old entry (or "a2" from renamedFrom)',
    },
  },
  {
    rule: 'renamedFrom does not name the key itself',
    files: {
      'p.yaml': projectYaml(
        '  alertConfigs:\n    - key: a1\n      renamedFrom: [old, a1]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 9,
      path: 'spec.alertConfigs[0].renamedFrom[1]',
      message: 'alert key "a1" names itself in renamedFrom: list only the keys it had before',
    },
  },
  {
    rule: 'renamedFrom does not name a released key',
    files: {
      'p.yaml': projectYaml(
        '  alertConfigs:\n    - key: a1\n      renamedFrom: [old]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n  release: [old]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 9,
      path: 'spec.alertConfigs[0].renamedFrom[0]',
      message:
        'alert key "a1" is renamed from "old", which project p1 releases (spec.release): a released config is let go, not taken over; remove "old" from one of the two',
    },
  },
  {
    rule: 'one old key is renamed to one key only',
    files: {
      'p.yaml': projectYaml(
        '  alertConfigs:\n    - key: a1\n      renamedFrom: [old]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n    - key: a2\n      renamedFrom: [old]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
    },
    want: {
      file: 'p.yaml',
      line: 13,
      path: 'spec.alertConfigs[1].renamedFrom[0]',
      message:
        'alert keys "a1" and "a2" are both renamed from "old" in project p1: one live config can become only one of them',
    },
  },
  {
    rule: 'renamedFrom from a template names a key the project still declares',
    files: {
      'p.yaml': projectYaml(
        '  alertTemplates: [baseline]\n  alertConfigs:\n    - key: k0\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
      ),
      't.yaml':
        'apiVersion: opsman-gitops/v1\nkind: AlertTemplate\nmetadata: {name: baseline}\nspec:\n  alertConfigs:\n    - {key: k, renamedFrom: [k0], eventTypeName: HOST_DOWN, notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]}\n',
    },
    want: {
      file: 't.yaml',
      line: 6,
      path: 'spec.alertConfigs[0].renamedFrom[0]',
      message:
        'alert key "k" (from template baseline) is renamed from "k0", but project p1 still declares "k0" at p.yaml:9',
    },
  },
  {
    // Found by review: a key moved from alertConfigs to release, still protected, was only "not an alert key".
    rule: 'a protected key that is released is refused with the reason and the way out',
    files: { 'p.yaml': projectYaml('  protect: [disk]\n  release: [disk]\n') },
    want: {
      file: 'p.yaml',
      line: 7,
      path: 'spec.protect[0]',
      message:
        'protect names "disk", which project p1 releases (spec.release), so it is no declared key: remove it from protect (a released config is never deleted: a release writes nothing to Ops Manager)',
    },
  },
  {
    rule: 'a released key is a valid alert key',
    files: { 'p.yaml': projectYaml('  release: ["-bad key"]\n') },
    want: { file: 'p.yaml', line: 7, path: 'spec.release[0]', message: 'spec.release[0] must be an alert key' },
  },
  {
    rule: 'at most one Settings',
    files: {
      'a.yaml': ORG,
      's.yaml':
        'apiVersion: opsman-gitops/v1\nkind: Settings\nspec: {}\n---\napiVersion: opsman-gitops/v1\nkind: Settings\nspec: {}\n',
    },
    want: { file: 's.yaml', line: 6, path: 'kind', message: 'a second Settings document' },
  },
  {
    rule: 'versionManifest.pin exists',
    files: {
      'a.yaml': ORG,
      's.yaml': 'apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  versionManifest: {pin: m.json}\n',
    },
    want: { file: 's.yaml', line: 4, path: 'spec.versionManifest.pin', message: 'cannot be read' },
  },
  {
    rule: 'versionManifest.pin is a manifest',
    files: {
      'a.yaml': ORG,
      's.yaml': 'apiVersion: opsman-gitops/v1\nkind: Settings\nspec:\n  versionManifest: {pin: m.json}\n',
      'm.json': '{"updated": 1}',
    },
    want: {
      file: 's.yaml',
      line: 4,
      path: 'spec.versionManifest.pin',
      message: 'expected a JSON object with a "versions" list',
    },
  },
];

describe('semantic rules', () => {
  it.each(cases)('$rule', async ({ files, want }) => {
    const issues = await issuesOf(files);
    expect(issues).toHaveLength(1);
    const [issue] = issues as [ValidationIssue];
    expect({ file: issue.file, line: issue.line, path: issue.path }).toEqual({
      file: want.file,
      line: want.line,
      path: want.path,
    });
    expect(issue.message).toContain(want.message);
    expect(issue.column).toBeGreaterThanOrEqual(1);
  });

  it('a value declared three times: each repeat names the first declaration', async () => {
    const issues = await issuesOf({ 'a.yaml': ORG, 'b.yaml': ORG, 'c.yaml': ORG.replace('name: acme', 'name: acme3') });
    const orgIds = issues.filter((i) => i.message.startsWith('duplicate orgId'));
    expect(orgIds.map((i) => [i.file, i.message.includes('already declared at a.yaml')])).toEqual([
      ['b.yaml', true],
      ['c.yaml', true],
    ]);
  });

  it('an unknown template lists the known ones in name order, whatever their file order', async () => {
    const issues = await issuesOf({
      'p.yaml': projectYaml('  alertTemplates: [zzz]\n'),
      'a.yaml': TEMPLATE('gamma'),
      'b.yaml': TEMPLATE('alpha'),
    });
    expect(issues.map((i) => i.message)).toEqual(['unknown template "zzz" (known templates: alpha, gamma)']);
  });

  it('accepts a TEAM notification when the project names its organization', async () => {
    const files = {
      'p.yaml': notification('typeName: TEAM, teamId: 6a1f00000000000000000001').replace(
        'name: p1\n',
        'name: p1\n  orgId: 5e2211c17a3e5a48f5497de0\n',
      ),
    };
    expect(await issuesOf(files)).toEqual([]);
  });

  // Regression: GROUP and ORG notifications without roles were refused ("missing roles"), although the spec requires
  // no role and Ops Manager (the emulator) creates them; only an empty roles list is refused.
  it('accepts GROUP and ORG notifications without roles, and refuses an empty roles list', async () => {
    expect(await issuesOf({ 'p.yaml': notification('typeName: GROUP, emailEnabled: true') })).toEqual([]);
    expect(await issuesOf({ 'p.yaml': notification('typeName: ORG, smsEnabled: true') })).toEqual([]);
    const empty = await issuesOf({ 'p.yaml': notification('typeName: GROUP, roles: []') });
    expect(empty.map((i) => [i.message, i.expected])).toEqual([
      [expect.stringContaining('roles must not be empty'), 'not empty'],
    ]);
  });

  // Regression (found by test/unit/desired/loader-robustness.property.test.ts): a typeName naming a property every
  // object inherits found Object.prototype as its field rules, and the load ended in "internal error ... TypeError".
  it.each(['__proto__', 'constructor', 'toString'])(
    'refuses a notification typeName "%s" as an unknown type, with its line',
    async (typeName) => {
      const issues = await issuesOf({ 'p.yaml': notification(`typeName: ${typeName}`) });
      expect(issues.map((i) => [i.line, i.path])).toEqual([[11, `${NOTIFY_PATH}.typeName`]]);
      expect(issues[0]?.message).toMatch(/typeName must be one of ADMIN, .*; found "[a-zA-Z_]+"$/);
    },
  );

  // Regression: an enum value naming an inherited property ("constructor") printed that function's source as the
  // reason Ops Manager refuses it ("(function Object() { [native code] })").
  it('refuses an enum value "constructor" without quoting the Object constructor', async () => {
    const body =
      '      eventTypeName: OUTSIDE_METRIC_THRESHOLD\n      metricThreshold: {metricName: CONNECTIONS, mode: constructor, operator: LESS_THAN, threshold: 1}\n      notifications: [{typeName: EMAIL, emailAddress: a@b.example}]\n';
    const issues = await issuesOf({ 'p.yaml': withAlert(body) });
    expect(issues.map((i) => i.message)).toEqual([
      'spec.alertConfigs[0].metricThreshold.mode must be one of AVERAGE; found "constructor"',
    ]);
  });

  // Regression (found by test/reliability/property-validated-apply.test.ts): numUncompressed 0 was accepted, and the
  // enforced rotation's PUT was refused by Ops Manager (400 INVALID_JSON_ATTRIBUTE): the count includes the current file.
  it('refuses an audit-log rotation keeping no file uncompressed (numUncompressed 0), and takes 1', async () => {
    const rotation = (n: number) =>
      projectYaml(
        `  auditLogRotation: {enforce: true, sizeThresholdMB: 1, timeThresholdHrs: 1, numUncompressed: ${n}}\n`,
      );
    const issues = await issuesOf({ 'p.yaml': rotation(0) });
    expect(issues.map((i) => [i.line, i.path, i.message])).toEqual([
      [7, 'spec.auditLogRotation.numUncompressed', 'spec.auditLogRotation.numUncompressed must be at least 1; found 0'],
    ]);
    expect(await issuesOf({ 'p.yaml': rotation(1) })).toEqual([]);
  });

  it('a renamedFrom item that is not a key is refused by the schema alone, not also as claimed twice', async () => {
    const config = (key: string) =>
      `    - key: ${key}\n      renamedFrom: [5]\n      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n`;
    const issues = await issuesOf({ 'p.yaml': projectYaml(`  alertConfigs:\n${config('a1')}${config('a2')}`) });
    expect(issues.map((i) => i.path)).toEqual([
      'spec.alertConfigs[0].renamedFrom[0]',
      'spec.alertConfigs[1].renamedFrom[0]',
    ]);
    expect(issues.filter((i) => i.message.includes('both renamed from'))).toEqual([]);
  });

  it('accepts released keys that are not declared, and loads them into the project', async () => {
    const result = await loadDesiredState(
      new MemorySource({
        'p.yaml': withAlert(
          '      eventTypeName: HOST_DOWN\n      notifications: [{typeName: GROUP, roles: [GROUP_OWNER]}]\n',
          '  release: [old-disk, old.host]\n',
        ),
      }),
    );
    expect(result.ok ? result.state.projects[0]?.release : result.issues).toEqual(['old-disk', 'old.host']);
    const none = await loadDesiredState(new MemorySource({ 'p.yaml': projectYaml('  prune: true\n') }));
    expect(none.ok && none.state.projects[0]?.release).toEqual([]);
  });

  it('normalises role to roles', async () => {
    const result = await loadDesiredState(
      new MemorySource({ 'p.yaml': notification('typeName: GROUP, role: GROUP_OWNER, intervalMin: 5') }),
    );
    expect(result.ok && result.state.projects[0]?.alertConfigs[0]?.notifications).toEqual([
      { typeName: 'GROUP', roles: ['GROUP_OWNER'], intervalMin: 5 },
    ]);
  });

  // The safe defaults: nothing is pruned, a rotation is only reported, and Settings keep every default they do not set.
  it('defaults a project to prune false and a rotation to enforce false, and merges Settings.prune over its defaults', async () => {
    const result = await loadDesiredState(
      new MemorySource({
        'p.yaml': projectYaml('  auditLogRotation: {sizeThresholdMB: 1, timeThresholdHrs: 1}\n'),
        's.yaml':
          'apiVersion: opsman-gitops/v1\nkind: Settings\nmetadata: {name: s}\nspec:\n  prune: {maxDeletes: 2}\n',
      }),
    );
    const project = result.ok ? result.state.projects[0] : undefined;
    expect(project?.prune).toBe(false);
    expect(project?.auditLogRotation).toEqual({ enforce: false, sizeThresholdMB: 1, timeThresholdHrs: 1 });
    expect(result.ok && result.state.settings.prune).toEqual({ maxDeletes: 2, allowEmpty: false });
  });

  // A notification list shared through an alias: its issue is at the anchored list, where the fix goes.
  it('points an issue inside an alias at the anchored node', async () => {
    const issues = await issuesOf({
      'p.yaml': withAlert(
        '      eventTypeName: HOST_DOWN\n      notifications: &n [{typeName: EMAIL}]\n    - key: a2\n      eventTypeName: NO_PRIMARY\n      notifications: *n\n',
      ),
    });
    expect(issues.map((i) => [i.line, i.column, i.path])).toEqual([
      [10, 26, NOTIFY_PATH],
      [10, 26, 'spec.alertConfigs[1].notifications[0]'],
    ]);
  });

  it('defaults enabled to true and matchers to []', async () => {
    const result = await loadDesiredState(
      new MemorySource({ 'p.yaml': notification('typeName: EMAIL, emailAddress: a@b.example') }),
    );
    const config = result.ok ? result.state.projects[0]?.alertConfigs[0] : undefined;
    expect(config?.enabled).toBe(true);
    expect(config?.matchers).toEqual([]);
    expect(config?.source).toEqual({ file: 'p.yaml', line: 8, column: 7 });
  });
});
