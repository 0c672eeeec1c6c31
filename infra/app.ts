/**
 * The CDK app (`cdk.json`: `npx tsx infra/app.ts`). Context keys: infra/settings.ts and docs/aws.md.
 */
import { App } from 'aws-cdk-lib';
import { synthApp } from './synth-app.ts';

// autoSynth off: synthApp synthesizes once itself; the default would synthesize again at exit, after a refused
// context, and print CloudFormation warnings about the half-built stack under the error.
process.exitCode = synthApp(new App({ autoSynth: false }), (text) => process.stderr.write(text));
