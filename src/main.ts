#!/usr/bin/env node
// First: it sets what later imports read when they load.
import './cli/debug-colors.ts';
import { failureMessage, runCommand } from './cli/run.ts';

runCommand(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(failureMessage(error));
    process.exit(1);
  },
);
