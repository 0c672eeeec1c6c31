/**
 * Builds the CDK app: one environment-agnostic stack, checked by cdk-nag AwsSolutions at every synth (unacknowledged
 * findings fail it). Separate from app.ts so tests can build it with their own context.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_STACK_NAME, SettingsError } from './settings.ts';
import { OpsmanGitopsStack } from './stack.ts';

export { DEFAULT_STACK_NAME };

/** CloudFormation's rule for stack names. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * The stack name from the `stackName` context key: one stack per Ops Manager installation, each with its own name
 * (`-c stackName=OpsmanGitopsEu`).
 */
export function stackNameOf(app: App): string {
  const value: unknown = app.node.tryGetContext('stackName') ?? DEFAULT_STACK_NAME;
  if (typeof value !== 'string' || !STACK_NAME.test(value)) {
    throw new SettingsError([
      `stackName must start with a letter and hold only letters, digits and '-' (at most 128); found ${JSON.stringify(value)}`,
    ]);
  }
  return value;
}

/** Builds the app (exported for tests, which pass their own context). */
export function buildApp(app: App = new App()): { app: App; stack: OpsmanGitopsStack } {
  const stack = new OpsmanGitopsStack(app, stackNameOf(app), {
    description: 'opsman-gitops: GitOps for MongoDB Ops Manager (reconcile, drift alarms, archives)',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
