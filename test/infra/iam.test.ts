// Scenario: the synthesized roles of the two functions, per deployment mode (cdk-nag on): a reconcile that may only
// observe or plan cannot write the state or the lease; the reconcile writes nothing under the archive but its reports;
// the credentials secret is read with GetSecretValue alone; and every S3 request the two handlers make on loopback S3
// (reconcile and archive runs at that mode) is one the synthesized role allows.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/build-app.ts';
import type { HouseFunction } from '../../infra/function.ts';
import { createAppContext } from '../../lambdas/handlers/app-context.ts';
import { createArchiveHandler } from '../../lambdas/handlers/archive.ts';
import { createReconcileHandler } from '../../lambdas/handlers/reconcile.ts';
import type { LoggedS3Request } from '../helpers/aws-s3-server.ts';
import { fakeLambdaContext, startAwsWorld, WORLD } from '../helpers/aws-world.ts';

const SLOW = 180_000;

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };

/**
 * One statement per action and resource, rendered as `action on resource` (then ` if condition`) with the bucket logical
 * id shortened.
 */
function grantsOf(resources: Resources, description: string): string[] {
  const fn = Object.entries(resources).find(
    ([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description ?? '').includes(description),
  )?.[1];
  const role = (fn?.Properties.Role as { 'Fn::GetAtt': string[] } | undefined)?.['Fn::GetAtt'][0];
  const statements = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => (r.Properties.Roles as { Ref: string }[]).some((ref) => ref.Ref === role))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  const render = (resource: unknown): string =>
    JSON.stringify(resource)
      .replace(/\{"Fn::Join":\["",\[\{"Fn::GetAtt":\["Storage(\w+?)[0-9A-F]{8}","Arn"\]\},"([^"]*)"\]\]\}/g, '$1$2')
      .replace(/\{"Fn::GetAtt":\["Storage(\w+?)[0-9A-F]{8}","Arn"\]\}/g, '$1')
      .replace(/"/g, '');
  const out: string[] = [];
  for (const s of statements) {
    for (const action of [s.Action].flat()) {
      const condition = s.Condition === undefined ? '' : ` if ${JSON.stringify(s.Condition).replace(/"/g, '')}`;
      for (const resource of [s.Resource].flat()) out.push(`${action} on ${render(resource)}${condition}`);
    }
  }
  return out.sort();
}

const MODES = ['observe', 'plan', 'apply'] as const;

/** The S3 action a logged request needs, and its resource as grantsOf renders it (`Data/state/state.json`). */
function needed(r: LoggedS3Request): { action: string; resource: string; prefix?: string } {
  const bucket = r.bucket === WORLD.dataBucket ? 'Data' : r.bucket === WORLD.desiredBucket ? 'DesiredState' : r.bucket;
  if (r.listPrefix !== undefined) return { action: 's3:ListBucket', resource: bucket, prefix: r.listPrefix };
  const action = r.method === 'PUT' ? 's3:PutObject' : r.method === 'DELETE' ? 's3:DeleteObject' : 's3:GetObject';
  return { action, resource: `${bucket}/${r.key}` };
}

/** IAM's `*`: any run of characters, `/` included. */
const wildcard = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** True when one of `grants` (grantsOf lines) allows the request, its `s3:prefix` condition included. */
function allowed(grants: string[], r: LoggedS3Request): boolean {
  const want = needed(r);
  return grants.some((grant) => {
    const match = /^(\S+) on (\S+)(?: if \{StringLike:\{s3:prefix:\[(.*)\]\}\})?$/.exec(grant);
    if (match === null || match[1] !== want.action || !wildcard(match[2] ?? '').test(want.resource)) return false;
    if (match[3] === undefined) return true;
    return want.prefix !== undefined && match[3].split(',').some((p) => wildcard(p).test(want.prefix ?? ''));
  });
}

describe.each(MODES)('IAM of the functions, mode %s', (mode) => {
  let outdir: string;
  let resources: Resources;

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), `opsman-cdk-iam-${mode}-`));
    const { app, stack } = buildApp(new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], mode } }));
    // cdk-nag v3: every wildcard left must be acknowledged, or synth throws.
    expect(() => app.synth()).not.toThrow();
    resources = Template.fromStack(stack).toJSON().Resources as Resources;
  }, SLOW);
  afterAll(async () => {
    await rm(outdir, { recursive: true, force: true });
  });

  it('reconcile: state and lease writes only when the deployment may apply; reports only under the archive', () => {
    const grants = grantsOf(resources, 'plan/apply').filter((g) => g.includes('Data'));
    const stateWrites = [
      's3:DeleteObject on Data/state/lease.json',
      's3:GetObject on Data/state/lease.json',
      's3:PutObject on Data/state/lease.json',
      's3:PutObject on Data/state/state.json',
    ];
    expect(grants).toEqual(
      [
        's3:GetObject on Data/cache/desired/*',
        's3:GetObject on Data/state/state.json',
        's3:ListBucket on Data',
        's3:PutObject on Data/archive/reports/*',
        's3:PutObject on Data/cache/desired/*',
        ...(mode === 'apply' ? stateWrites : []),
      ].sort(),
    );
  });

  it('archive: the archive and the cache, no state, no lease', () => {
    const grants = grantsOf(resources, 'daily archive').filter((g) => g.includes('Data'));
    expect(grants).toEqual(
      [
        's3:GetObject on Data/archive/*',
        's3:GetObject on Data/cache/desired/*',
        's3:ListBucket on Data',
        's3:PutObject on Data/archive/*',
        's3:PutObject on Data/cache/desired/*',
      ].sort(),
    );
  });

  it('both read the credentials secret with GetSecretValue alone; only the reconcile the secretRef prefix', () => {
    const credentials = 'secretsmanager:GetSecretValue on {Ref:CredentialsF8F243AA}';
    const secretsOf = (d: string) => grantsOf(resources, d).filter((g) => g.startsWith('secretsmanager:'));
    expect(secretsOf('daily archive')).toEqual([credentials]);
    const reconcile = secretsOf('plan/apply');
    expect(reconcile).toHaveLength(2);
    expect(reconcile).toContain(credentials);
    expect(reconcile.find((g) => g !== credentials)).toContain(':secret:opsman/*');
  });

  it('each function may send to the FailedInvocations queue (its on-failure destination) and to no other queue', () => {
    for (const d of ['plan/apply', 'daily archive']) {
      expect(grantsOf(resources, d).filter((g) => g.startsWith('sqs:'))).toEqual([
        'sqs:GetQueueAttributes on {Fn::GetAtt:[FailedInvocationsED025904,Arn]}',
        'sqs:GetQueueUrl on {Fn::GetAtt:[FailedInvocationsED025904,Arn]}',
        'sqs:SendMessage on {Fn::GetAtt:[FailedInvocationsED025904,Arn]}',
      ]);
    }
  });

  it('every S3 request of a reconcile run, a scheduled one and two archives on loopback S3 is one the role allows', async () => {
    const world = await startAwsWorld({ mode });
    const saved = { ...process.env };
    try {
      Object.assign(process.env, world.env, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
      const context = (fn: string) => fakeLambdaContext(`req-${fn}`, fn) as unknown as Context;
      const reconcile = createReconcileHandler(createAppContext());
      const archive = createArchiveHandler(createAppContext());
      const refused = (description: string) =>
        world.s3.requests.filter((r) => !allowed(grantsOf(resources, description), r)).map((r) => needed(r));
      for (const event of [{}, { source: 'aws.scheduler', 'detail-type': 'Scheduled Event' }]) {
        expect(await reconcile(event, context('opsman-gitops-reconcile'))).toMatchObject({ status: 'ok' });
      }
      const writes = world.s3.requests.filter((r) => r.method === 'PUT' || r.method === 'DELETE').length;
      // Not vacuous: reports and the cache always, the state and the lease only when the mode may apply.
      expect(writes).toBeGreaterThanOrEqual(mode === 'apply' ? 6 : 2);
      expect(refused('plan/apply')).toEqual([]);
      world.s3.requests.length = 0;
      for (let i = 0; i < 2; i++) {
        expect(await archive({}, context('opsman-gitops-archive'))).toMatchObject({ status: 'ok' });
      }
      expect(world.s3.requests.length).toBeGreaterThan(0);
      expect(refused('daily archive')).toEqual([]);
    } finally {
      process.env = saved;
      await world.close();
    }
  });

  it('neither function may write to the desired-state bucket', () => {
    for (const d of ['plan/apply', 'daily archive']) {
      const desired = grantsOf(resources, d).filter((g) => g.includes('DesiredState'));
      // Listing is limited to the desired-state prefix, as reading is.
      expect(desired).toEqual([
        's3:GetObject on DesiredState/desired-state/*',
        's3:ListBucket on DesiredState if {StringLike:{s3:prefix:[desired-state/,desired-state/*]}}',
      ]);
    }
  });
});

// In a VPC, Lambda manages the functions' network interfaces with their roles. AWS's managed
// AWSLambdaVPCAccessExecutionRole would do it, but it also grants logs:CreateLogGroup/CreateLogStream/PutLogEvents on
// every log group of the account: "its log group" (README, IAM summary) would then be false.
describe('IAM of the functions in a VPC', () => {
  let outdir: string;
  let resources: Resources;
  let app: App;
  let stack: Stack;
  const VPC = {
    'aws:cdk:bundling-stacks': [],
    vpcId: 'vpc-0123456789abcdef0',
    subnetIds: 'subnet-0123456789abcdef0',
    securityGroupIds: 'sg-0123456789abcdef0',
  };

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), 'opsman-cdk-iam-vpc-'));
    ({ app, stack } = buildApp(new App({ outdir, context: VPC })));
    expect(() => app.synth()).not.toThrow();
    resources = Template.fromStack(stack).toJSON().Resources as Resources;
  }, SLOW);
  afterAll(async () => {
    await rm(outdir, { recursive: true, force: true });
  });

  it('each function writes its own log group only; `*` only for the network-interface actions; no managed policy', () => {
    for (const [description, logGroup] of [
      ['plan/apply', 'ReconcileLogs'],
      ['daily archive', 'ArchiveLogs'],
    ] as const) {
      const fn = Object.values(resources).find(
        (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).includes(description),
      );
      const roleId = (fn?.Properties.Role as { 'Fn::GetAtt': string[] } | undefined)?.['Fn::GetAtt'][0] ?? '';
      expect(roleId).not.toBe('');
      expect(resources[roleId]?.Properties.ManagedPolicyArns).toBeUndefined();
      const grants = grantsOf(resources, description);
      const own = new RegExp(
        `^logs:(CreateLogStream|PutLogEvents) on \\{Fn::GetAtt:\\[${logGroup}[0-9A-F]{8},Arn\\]\\}$`,
      );
      const logs = grants.filter((g) => g.startsWith('logs:'));
      expect(logs).toHaveLength(2);
      for (const grant of logs) expect(grant).toMatch(own);
      // The EC2 actions of AWSLambdaVPCAccessExecutionRole (v3), each of which Lambda needs to manage the interfaces.
      expect(grants.filter((g) => g.endsWith(' on *'))).toEqual([
        'ec2:AssignPrivateIpAddresses on *',
        'ec2:CreateNetworkInterface on *',
        'ec2:DeleteNetworkInterface on *',
        'ec2:DescribeNetworkInterfaces on *',
        'ec2:DescribeSubnets on *',
        'ec2:UnassignPrivateIpAddresses on *',
      ]);
    }
  });

  it(
    'a `*` resource granted on a function role itself (not its network-interface policy) still fails cdk-nag',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'opsman-cdk-iam-vpc-nag-'));
      try {
        const built = buildApp(new App({ outdir: dir, context: VPC }));
        const reconcile = built.stack.node.findChild('Reconcile') as HouseFunction;
        reconcile.role.addToPolicy(new PolicyStatement({ actions: ['logs:PutLogEvents'], resources: ['*'] }));
        expect(() => built.app.synth()).toThrow(
          /Reconcile\/Role\/DefaultPolicy[\s\S]*AwsSolutions-IAM5\[Resource::\*\]/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});
