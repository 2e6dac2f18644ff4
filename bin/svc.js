#!/usr/bin/env node
// Enable Node's on-disk compile cache (Node 22.1+) before the bundle is parsed; a no-op elsewhere.
import module from 'node:module';

try {
  module.enableCompileCache?.();
} catch {
  // The cache is an optimisation only.
}
await import('../dist/main.js');
