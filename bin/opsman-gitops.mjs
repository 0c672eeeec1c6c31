#!/usr/bin/env node
// Entry point of the `opsman-gitops` command. The sources are TypeScript run through tsx, so there is no build step
// between `npm ci` and `npm start`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
