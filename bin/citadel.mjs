#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader: no build step between edit and run.
import { register } from 'tsx/esm/api';

register();
process.env.CITADEL_CLI = '1';
await import('../src/cli.ts');
