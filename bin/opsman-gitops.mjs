#!/usr/bin/env node
// Entry point of the `opsman-gitops` command. The sources are TypeScript run through tsx, so there is no build step
// between `npm ci` and `npm start`. tsx is imported only after the Node.js version check (a static import would load
// it first).
import { nodeVersionProblem } from './node-version.mjs';

const problem = nodeVersionProblem(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
