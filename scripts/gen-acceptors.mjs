// Regenerates src/contract/accept-generated.ts from the schemas that
// src/contract/accept-codegen.ts names (`npm run gen:acceptors`, through tsx).
// test/contract/accept.test.ts fails when the file falls behind the schemas.
import { writeFileSync } from 'node:fs';
import { ACCEPTED, GENERATED_FILE, generateAcceptors } from '../src/contract/accept-codegen.ts';

process.chdir(new URL('..', import.meta.url).pathname);
const modules = {};
for (const module of Object.keys(ACCEPTED)) modules[module] = await import(`../src/contract/${module}.ts`);
writeFileSync(GENERATED_FILE, generateAcceptors(modules));
console.log(`wrote ${GENERATED_FILE}`);
