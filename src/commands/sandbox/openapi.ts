// `svc sandbox openapi`: the interface as an OpenAPI 3.1 document, generated from the zod
// schemas svc and its sandbox share; no sandbox needs to run.
import { openApiDocument } from '../../contract/openapi.js';
import type { Factory } from '../../factory.js';
import { writeJson } from '../../io/output.js';
import { VERSION } from '../../version.js';

export type OpenApiOptions = Record<string, never>;

export async function run(_opts: OpenApiOptions, f: Factory): Promise<void> {
  writeJson(f.io, openApiDocument(VERSION));
}
