// The one way src/ loads zod at run time: the mode the command chose (./zod-mode.ts) is set
// here, after zod loads and before any schema is built, whoever loads it first. A command
// whose schemas all have accepters (./accept.ts) never loads it. Type-only imports of 'zod'
// are free and stay where they are; test/contract/accept.test.ts keeps the rule.
import * as z from 'zod';
import { onZodLoaded } from './zod-mode.js';

onZodLoaded((settings) => z.config(settings));

export * from 'zod';
