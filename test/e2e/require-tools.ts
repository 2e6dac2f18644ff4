// System tools an end-to-end test drives for real. Outside CI a missing tool skips the
// test and says which Debian package to install; under CI=true it is an error, so a runner
// without the tools fails instead of passing by skipping.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isCI } from '../../src/io/streams.js';

const DEBIAN_PACKAGE: Readonly<Record<string, string>> = {
  'dbus-daemon': 'dbus',
  'gnome-keyring-daemon': 'gnome-keyring',
  'secret-tool': 'libsecret-tools',
  chromium: 'chromium',
  pdftotext: 'poppler-utils',
};

/** Undefined when every tool is on PATH, else a skip reason naming the packages; throws under CI. */
export function requireTools(tools: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const missing = tools.filter((tool) => !onPath(tool, env.PATH ?? ''));
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map((tool) => DEBIAN_PACKAGE[tool] ?? tool))];
  const reason = `missing ${missing.join(', ')} (apt-get install ${packages.join(' ')})`;
  if (isCI(env)) throw new Error(`CI must run this test: ${reason}`);
  return reason;
}

function onPath(tool: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
