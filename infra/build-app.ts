/**
 * Builds the CDK app: one environment-agnostic stack, checked by cdk-nag AwsSolutions at every synth (unacknowledged
 * findings fail it). Separate from app.ts so tests can build it with their own context.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { OpsmanGitopsStack } from './stack.ts';

/** Builds the app (exported for tests, which pass their own context). */
export function buildApp(app: App = new App()): { app: App; stack: OpsmanGitopsStack } {
  const stack = new OpsmanGitopsStack(app, 'OpsmanGitops', {
    description: 'opsman-gitops: GitOps for MongoDB Ops Manager (reconcile, drift alarms, archives)',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
