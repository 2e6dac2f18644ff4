// What several benchmarks share: sample sizes from the environment, and a sandbox started for
// the run (stopped when the benchmark's process exits).
import { spawn, spawnSync } from 'node:child_process';

/** A whole number of at least 1 from the environment, else the default; exit 2 on anything else. */
export function positive(name, fallback) {
  const value = process.env[name] === undefined ? fallback : Number(process.env[name]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1 (got ${process.env[name]})`);
    process.exit(2);
  }
  return value;
}

/** `svc sandbox start --port 0 ARGS`; resolves with its URL. Its pipe does not keep this process alive. */
export async function startBenchSandbox(svc, args = []) {
  const sandbox = spawn(process.execPath, [svc, 'sandbox', 'start', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    sandbox.stdout.on('data', (chunk) => {
      seen += chunk;
      const match = /^listening on (http:\/\/\S+)$/m.exec(seen);
      if (match) resolve(match[1]);
    });
    sandbox.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before listening`)));
  });
  process.on('exit', () => sandbox.kill('SIGTERM'));
  sandbox.stdout.unref?.();
  sandbox.unref();
  return url;
}

const gnuTime = spawnSync('/usr/bin/time', ['-f', '%U', 'true']).status === 0;
/**
 * spawnSync through GNU time when there is one: `{ result, ms, cpuMs }`, cpuMs the child's user +
 * system CPU time (10 ms steps) or undefined. On a shared machine CPU time moves far less than
 * wall time; the child's own stderr is given back without time's line.
 */
export function spawnTimed(file, args, options) {
  const start = process.hrtime.bigint();
  const result = gnuTime ? spawnSync('/usr/bin/time', ['-f', 'svc-bench-cpu %U %S', file, ...args], options) : spawnSync(file, args, options);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  let cpuMs;
  if (gnuTime && result.stderr) {
    const text = result.stderr.toString();
    const at = text.lastIndexOf('svc-bench-cpu ');
    if (at >= 0) {
      const [user, system] = text.slice(at + 'svc-bench-cpu '.length).trim().split(' ').map(Number);
      cpuMs = (user + system) * 1000;
      result.stderr = Buffer.from(text.slice(0, at));
    }
  }
  return { result, ms, cpuMs };
}
