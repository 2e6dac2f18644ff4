#!/usr/bin/env node
// CommonJS (bin/package.json), as the bundle is: an ES module here would load Node's ESM
// loader for this file alone.
'use strict';
const { join } = require('node:path');

// `svc --version` answers before anything else is loaded: scripts call it to check the
// tool, and it needs neither the command tree nor the code cache.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  const { readFileSync } = require('node:fs');
  // A reader that has gone (`svc --version | true`) is no failure; src/main.ts does the same.
  process.stdout.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else {
  // The bundle, with its compiled code cached between runs (src/startup/start.ts).
  require('../dist/start.cjs').start(join(__dirname, '..', 'dist'), process.env);
}
