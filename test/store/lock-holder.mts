// A child process for lock.test.ts: takes the lock named on the command line, says so on
// stdout, then holds it until killed (or releases it after argv[3] ms).
import { acquireLock } from '../../src/store/lock.js';

const [path, holdMs] = process.argv.slice(2);
const lock = await acquireLock(path as string, { details: { address: 'http://127.0.0.1:1' } });
process.stdout.write('held\n');
if (holdMs !== undefined) {
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  await lock.release();
  process.stdout.write('released\n');
} else {
  setInterval(() => undefined, 1_000);
}
