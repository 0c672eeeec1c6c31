/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). Context keys: infra/settings.ts and docs/aws.md.
 */
import { buildApp } from './build-app.ts';

buildApp().app.synth();
