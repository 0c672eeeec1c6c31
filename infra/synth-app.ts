/**
 * Synthesizes the CDK app for `cdk synth` / `cdk deploy`. A configuration mistake (a bad context value, an
 * unusable desired-state folder) is printed as plain `error:` lines naming each problem, with exit code 1: a stack
 * trace from inside the stack's constructor would bury the one line the user needs.
 */
import type { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.ts';
import { DesiredStateSourceError } from './desired-snapshot.ts';
import { SettingsError } from './settings.ts';

/** Builds and synthesizes `app`; returns the exit code (1 after a configuration mistake, written with `write`). */
export function synthApp(app: App, write: (text: string) => void): number {
  try {
    buildApp(app).app.synth();
    return 0;
  } catch (err) {
    if (err instanceof SettingsError) {
      const lines = err.problems.map((problem) => `  - ${problem}\n`).join('');
      write(`error: invalid CDK context (cdk.json, or -c key=value) (${err.code}):\n${lines}`);
      return 1;
    }
    if (err instanceof DesiredStateSourceError) {
      write(`error: ${err.message} (${err.code})\n`);
      return 1;
    }
    throw err;
  }
}
