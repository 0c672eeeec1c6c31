/**
 * NodejsFunction with the house defaults: Node.js 24 on arm64, local esbuild bundling (minified ESM with source maps
 * and the `createRequire` banner ESM bundles need for CommonJS dependencies), its own LogGroup with retention, JSON
 * logging, an SQS on-failure destination, and a role with nothing but write access to its own log group (plus, in a VPC,
 * the network-interface actions Lambda performs with it).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ISecurityGroup, ISubnet, IVpc } from 'aws-cdk-lib/aws-ec2';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** ESM bundles have no `require`; CommonJS dependencies inside them call it, so define one from import.meta.url. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __opsmanCreateRequire } from 'node:module'; const require = __opsmanCreateRequire(import.meta.url);";

/**
 * What Lambda does with the role of a function in a VPC: create, describe and delete its network interfaces (AWS's
 * AWSLambdaVPCAccessExecutionRole without its `logs:CreateLogGroup`/`CreateLogStream`/`PutLogEvents` on every log group
 * of the account: each function writes its own log group only). These actions take `*` as their resource.
 */
export const VPC_NETWORK_INTERFACE_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
] as const;

/** File name of the private CA bundle inside the function package. */
export const CA_BUNDLE_FILE = 'ca-bundle.pem';

/** What varies per function. */
export interface HouseFunctionProps {
  /** Handler source file (absolute path). */
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  onFailure: IQueue;
  logRetention: RetentionDays;
  reservedConcurrentExecutions?: number;
  /** Absolute path of a PEM CA bundle copied into the package as ca-bundle.pem. */
  caBundlePath?: string;
  vpc?: { vpc: IVpc; subnets: ISubnet[]; securityGroups: ISecurityGroup[] };
  /** Root of the repository (for the lock file and esbuild's working directory). */
  projectRoot: string;
}

/** A Lambda function with the house defaults. */
export class HouseFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;
  /** With a VPC: the policy of the network-interface actions (its own construct, so that cdk-nag's `*` acknowledgement covers it alone). */
  readonly vpcPolicy?: Policy;

  constructor(scope: Construct, id: string, props: HouseFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${id}: writes its own logs; data permissions are granted per prefix by the stack`,
    });
    this.logGroup.grantWrite(this.role);
    if (props.vpc) {
      this.vpcPolicy = new Policy(this, 'VpcNetworkInterfaces', {
        roles: [this.role],
        statements: [new PolicyStatement({ actions: [...VPC_NETWORK_INTERFACE_ACTIONS], resources: ['*'] })],
      });
    }
    const caBundle = props.caBundlePath;
    this.fn = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...(caBundle
          ? { OPSMAN_CA_FILE: `/var/task/${CA_BUNDLE_FILE}`, NODE_EXTRA_CA_CERTS: `/var/task/${CA_BUNDLE_FILE}` }
          : {}),
        ...props.environment,
      },
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      onFailure: new SqsDestination(props.onFailure),
      retryAttempts: 2,
      maxEventAge: Duration.hours(2),
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      ...(props.vpc
        ? { vpc: props.vpc.vpc, vpcSubnets: { subnets: props.vpc.subnets }, securityGroups: props.vpc.securityGroups }
        : {}),
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // The Node.js 24 runtime ships AWS SDK v3: bundling it would push the package past its 1.1 MB budget (see docs/aws.md).
        externalModules: ['@aws-sdk/*'],
        forceDockerBundling: false,
        ...(caBundle
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_input: string, output: string) => [`cp "${caBundle}" "${output}/${CA_BUNDLE_FILE}"`],
              },
            }
          : {}),
      },
    });
    // Lambda checks the ENI permissions when it creates the function: the policy must exist first.
    if (this.vpcPolicy) this.fn.node.addDependency(this.vpcPolicy);
  }
}
