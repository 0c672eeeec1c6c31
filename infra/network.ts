/**
 * Optional VPC placement from context ids (`fromVpcAttributes`, never a lookup, so synth needs no account), and the
 * endpoints functions in private subnets then need: an S3 gateway endpoint (when route table ids are given) and an
 * interface endpoint for Secrets Manager. No CloudWatch Logs endpoint: Lambda itself delivers a function's output
 * (logs and the EMF metrics in them) to CloudWatch Logs, not through the function's network interfaces, and no
 * handler calls the Logs API; the endpoint would cost an hourly charge per subnet for nothing.
 */
import { Fn } from 'aws-cdk-lib';
import {
  GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  type ISecurityGroup,
  type ISubnet,
  type IVpc,
  Port,
  SecurityGroup,
  Subnet,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { Construct } from 'constructs';
import type { VpcSettings } from './settings.ts';

/** The imported network, ready for the functions. */
export class Network extends Construct {
  readonly vpc: IVpc;
  readonly subnets: ISubnet[];
  readonly securityGroups: ISecurityGroup[];

  constructor(scope: Construct, id: string, settings: VpcSettings) {
    super(scope, id);
    this.subnets = settings.subnetIds.map((subnetId, i) => {
      const routeTableId = settings.routeTableIds[i];
      return routeTableId
        ? Subnet.fromSubnetAttributes(this, `Subnet${i}`, { subnetId, routeTableId })
        : Subnet.fromSubnetId(this, `Subnet${i}`, subnetId);
    });
    this.vpc = Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: settings.vpcId,
      // Tokens, resolved at deploy time: the stack stays environment-agnostic and synth needs no lookup.
      availabilityZones: settings.subnetIds.map((_, i) => Fn.select(i, Fn.getAzs())),
      privateSubnetIds: settings.subnetIds,
      ...(settings.routeTableIds.length > 0 ? { privateSubnetRouteTableIds: settings.routeTableIds } : {}),
    });
    this.securityGroups = settings.securityGroupIds.map((sgId, i) =>
      SecurityGroup.fromSecurityGroupId(this, `FunctionSg${i}`, sgId, { mutable: false }),
    );
    if (!settings.createEndpoints) return;
    if (settings.routeTableIds.length > 0) {
      new GatewayVpcEndpoint(this, 'S3Endpoint', {
        vpc: this.vpc,
        service: GatewayVpcEndpointAwsService.S3,
        subnets: [{ subnets: this.subnets }],
      });
    }
    const endpointSg = new SecurityGroup(this, 'EndpointSg', {
      vpc: this.vpc,
      description: 'opsman-gitops interface endpoints: HTTPS from the functions only',
      allowAllOutbound: false,
    });
    for (const sg of this.securityGroups) endpointSg.addIngressRule(sg, Port.tcp(443), 'HTTPS from the functions');
    new InterfaceVpcEndpoint(this, 'SecretsManagerEndpoint', {
      vpc: this.vpc,
      service: InterfaceVpcEndpointAwsService.SECRETS_MANAGER,
      subnets: { subnets: this.subnets },
      securityGroups: [endpointSg],
      privateDnsEnabled: true,
      open: false,
    });
  }
}
