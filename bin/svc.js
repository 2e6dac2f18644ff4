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
  const dist = join(__dirname, '..', 'dist');
  try {
    require('../dist/start.cjs').start(dist, process.env);
  } catch (error) {
    // A checkout not built, or a build under way (its files replaced one by one): said, not a stack.
    const missing = error && ((error.code === 'ENOENT' && String(error.path).startsWith(dist)) || (error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/start.cjs')));
    if (!missing) throw error;
    process.stderr.write(`error: svc's build in ${dist} is missing a file (${error.path || 'start.cjs'})\nhint: run \`npm run build\` there, or run svc again once a build under way has finished\n`);
    process.exitCode = 1;
  }
}
