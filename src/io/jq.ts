// `--jq EXPR` (CLI.md): a command's JSON output filtered by a real jq (jq 1.7 compiled to
// WebAssembly, the jq-wasm package), loaded only when the flag is given. The command writes
// its --json output as always, into a buffer; the filter runs over it once the command has
// finished (every JSON value of it, NDJSON too, as jq reads a stream), and strings come out
// raw, as with `gh --jq`. A filter jq refuses is a usage error (exit 2) with jq's message.
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { UsageError } from '../errors.js';
import type { IOStreams } from './streams.js';

export interface JqCapture {
  /** The streams the command writes to: stdout collected, the rest as they were. */
  io: IOStreams;
  /** Runs the filter over what was collected and writes its output to the real stdout. */
  finish(): Promise<void>;
}

export function captureForJq(io: IOStreams, filter: string): JqCapture {
  const collector = new PassThrough();
  const chunks: Buffer[] = [];
  collector.on('data', (chunk: Buffer) => chunks.push(chunk));
  return {
    io: { ...io, stdout: collector, stdoutIsTTY: false, json: true },
    async finish() {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return;
      const require = createRequire(import.meta.url);
      const jq = require('jq-wasm') as { raw(data: string, filter: string, flags?: string[]): Promise<string> };
      let out: string;
      try {
        out = await jq.raw(text, filter, ['-r']);
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).replace(/^Failed to execute JSON query: /, '').split('\n')[0];
        throw new UsageError(`--jq: ${message}`, { hint: 'see https://jqlang.org/manual/ for the filter language' });
      }
      io.stdout.write(out.endsWith('\n') || out === '' ? out : `${out}\n`);
    },
  };
}
