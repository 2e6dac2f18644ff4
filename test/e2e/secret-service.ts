// A Secret Service of the test's own: a private D-Bus session bus (no service activation, so
// nothing else can answer for it) and an unlocked gnome-keyring on it, with its files under
// the test's directory. Each stop is pushed onto `stops` for the test's afterEach.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';

async function stopProcess(child: ResultPromise): Promise<void> {
  child.kill();
  await child.catch(() => undefined);
}

async function firstLine(child: ResultPromise): Promise<string> {
  let text = '';
  for await (const chunk of child.stdout as NodeJS.ReadableStream) {
    text += chunk.toString();
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end).trim();
  }
  throw new Error(`dbus-daemon printed no address: ${text}`);
}

/**
 * A session bus of our own (no service activation, so nothing else can answer for the
 * Secret Service) and an unlocked gnome-keyring on it, with its files under the test dir.
 * An empty line on stdin is the new login keyring's password; without it the daemon would
 * ask a graphical prompter for one.
 */
export async function startSecretService(dir: string, stops: (() => Promise<void>)[]): Promise<string> {
  const runtime = join(dir, 'runtime');
  await mkdir(runtime, { recursive: true });
  await chmod(runtime, 0o700);
  const config = join(dir, 'session-bus.conf');
  await writeFile(
    config,
    `<busconfig><type>session</type><listen>unix:dir=${dir}</listen><auth>EXTERNAL</auth>` +
      '<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>',
  );
  const bus = execa('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], { stderr: 'ignore' });
  stops.push(() => stopProcess(bus));
  const address = await firstLine(bus);

  const env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), XDG_DATA_HOME: join(dir, 'data'), XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: address };
  const keyring = execa('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
    env,
    extendEnv: false,
    input: '\n',
    stdout: 'ignore',
    stderr: 'ignore',
  });
  stops.push(() => stopProcess(keyring));
  // secret-tool succeeds (with no matches) once org.freedesktop.secrets is on the bus.
  for (let attempt = 0; ; attempt++) {
    const probe = await secretTool(['search', '--all', 'service', 'svc-e2e-readiness'], address);
    if (probe.exitCode === 0) return address;
    if (attempt === 100) throw new Error(`gnome-keyring-daemon did not come up: ${probe.all}`);
    await sleep(100);
  }
}

export function secretTool(args: string[], address: string) {
  return execa('secret-tool', args, { env: { DBUS_SESSION_BUS_ADDRESS: address }, reject: false, all: true });
}
