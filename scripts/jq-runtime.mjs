// jq-wasm's Emscripten runtime (jq 1.7 in WebAssembly), made fit for `--jq` at build time.
// Its own glue loses what a script needs and is slow: it runs jq with WebAssembly's fixed
// environment (USER=web_user, so `env` and `$ENV` were the sandbox's), throws jq's exit status
// away, trims the output, and grows its buffers a byte at a time (quadratic: seconds for a
// long list). And it carries the 900 KB binary as base64 in the script, decoded on every run.
// Three replacements make it: our glue (environment, status, linear buffers), the environment
// from Module.svcEnv, and the binary as a file of its own (dist/jq.wasm), compiled by the
// caller (src/io/jq.ts) while the command runs. A replacement that no longer finds its text
// (another jq-wasm) fails the build instead of shipping the old behaviour.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const jqRuntimeFile = require.resolve('jq-wasm/dist/build/jq.js');

const GLUE = `
        let svcInput = new Uint8Array(0), svcInputAt = 0, svcOut, svcErr;
        const svcBytes = () => { let bytes = new Uint8Array(65536), length = 0; return { push(c) { if (length === bytes.length) { const grown = new Uint8Array(bytes.length * 2); grown.set(bytes); bytes = grown; } bytes[length++] = c; }, take: () => bytes.subarray(0, length) }; };
        let runtimeInitResolve;
        const runtimeInitPromise = new Promise(resolve => { runtimeInitResolve = resolve; });
        Module = { ...Module, noInitialRun: true, noExitRuntime: true, onRuntimeInitialized() { runtimeInitResolve(); }, printErr(message) { if (typeof message === "string" && message.includes("program exited (with status:")) return; svcErr?.push(...new TextEncoder().encode(message + "\\n")); }, preRun() { FS.init(() => svcInputAt < svcInput.length ? svcInput[svcInputAt++] : null, c => { if (c !== null && c !== undefined) svcOut.push(c); }, c => { if (c !== null && c !== undefined) svcErr.push(c); }); }, svcRun(input, args) { return runtimeInitPromise.then(() => { svcInput = input; svcInputAt = 0; svcOut = svcBytes(); svcErr = svcBytes(); const status = Module.callMain(args); return { status, stdout: svcOut.take(), stderr: svcErr.take() }; }); } };
`;

/** The runtime's source with the replacements made; the binary is returned beside it. */
export function patchedJqRuntime() {
  let source = readFileSync(jqRuntimeFile, 'utf8');
  const replace = (what, from, to, make) => {
    const start = source.indexOf(from);
    const end = start < 0 ? -1 : source.indexOf(to, start + from.length);
    if (start < 0 || end < 0) throw new Error(`jq-wasm's runtime has changed: cannot replace ${what} (scripts/jq-runtime.mjs)`);
    const replaced = source.slice(start, end);
    source = source.slice(0, start) + make(replaced) + source.slice(end);
    return replaced;
  };
  replace('its glue', 'let stdinString = "";', 'var moduleOverrides = Object.assign({}, Module);', () => GLUE);
  replace('its environment', 'var ENV = {};', '\n', () => 'var ENV = Module.svcEnv || {};');
  const prefix = 'function findWasmBinary() { var f = "data:application/octet-stream;base64,';
  const base64 = replace('its binary', prefix, '"', () => 'function findWasmBinary() { var f = "').slice(prefix.length);
  return { source, wasm: Buffer.from(base64, 'base64') };
}
