// One factory of lazy, cached getters (gh's cmd/factory). What depends on what:
//   io        <- globals (--json, --no-input, --no-color), env
//   config    <- paths                      (conf file; imported on first use)
//   settings  <- config, globals, env       (flag > env > profile > built-in)
//   secrets   <- paths, env, io, profile name (flag > env > default)
//   api       <- settings, io (--debug trace), clock, secrets (tokens, later issues)
//   prompter  <- io
//   ledger    <- paths, profile name, io   (store/: SQLite or PostgreSQL; loaded on first use)
// Nothing below the factory reads process.env or process.stdout itself.
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';
import { resolvePaths, type Paths } from './config/paths.js';
import type { Settings } from './config/settings.js';
import type { ConfigStore } from './config/store.js';
import type { ApiClient } from './api/client.js';
import { createPrompter, type Prompter } from './io/prompter.js';
import { processStopSignal, type StopOptions, type StopSignal } from './io/stop-signal.js';
import type { IOStreams } from './io/streams.js';
import { systemStreams } from './io/system-streams.js';
import type { SecretStore } from './secrets/store.js';
import type { LedgerStore } from './store/ledger.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface GlobalOptions {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  json: boolean;
  /** false with --no-input */
  input: boolean;
  debug: boolean;
  /** false with --no-color */
  color: boolean;
  /** --grant SELECTOR of a verb that acts for a company (src/auth/grant-select.ts). */
  grant?: string | undefined;
}

export interface Factory {
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly io: IOStreams;
  readonly paths: Paths;
  readonly clock: Clock;
  readonly debug: boolean;
  /** How a command that runs until stopped learns to stop (default: SIGINT or SIGTERM). */
  readonly stopSignal: (opts?: StopOptions) => StopSignal;
  /** Shows a URL to the user in place of the system browser (the demo plays the browser). */
  readonly openUrl: ((url: string) => Promise<boolean | void>) | undefined;
  /** Set on a fan-out's factory for one Grant (src/grants/fan-out.ts): its report names the company of each failure. */
  readonly inFanOut?: boolean;
  config(): Promise<ConfigStore>;
  settings(): Promise<Settings>;
  secrets(): Promise<SecretStore>;
  api(): Promise<ApiClient>;
  /** A client of the same kind (timeouts, proxies, --debug) for another origin: a sandbox's consent page, svc's own loopback listener. */
  apiAt(baseUrl: string): Promise<ApiClient>;
  /** The merchant's records and the submissions under way (src/store/). */
  ledger(): Promise<LedgerStore>;
  prompter(): Prompter;
  /** Releases what the getters opened (keep-alive sockets), so the process can end. */
  dispose(): Promise<void>;
}

function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

export interface FactoryParts {
  env: Env;
  globals: GlobalOptions;
  io?: IOStreams;
  clock?: Clock;
  config?: ConfigStore;
  secrets?: SecretStore;
  api?: ApiClient;
  ledger?: LedgerStore;
  openUrl?: (url: string) => Promise<boolean | void>;
  stopSignal?: (opts?: StopOptions) => StopSignal;
}

export function createFactory(parts: FactoryParts): Factory {
  const { env, globals } = parts;
  const debug = globals.debug || env.SVC_DEBUG === '1';
  const io = once(
    () =>
      parts.io ??
      systemStreams({ env, noColorFlag: !globals.color, noInputFlag: !globals.input, json: globals.json }),
  );
  const paths = once(() => resolvePaths(env));
  const config = once(async () => {
    if (parts.config) return parts.config;
    const { openConfigStore } = await import('./config/store.js');
    return await openConfigStore(paths().configDir);
  });
  const settings = once(async () => {
    // Both loads at once: each is a chunk to read and compile.
    const [{ resolveSettings }, store] = await Promise.all([import('./config/settings.js'), config()]);
    return resolveSettings({ flags: globals, env, config: store });
  });
  const secrets = once(async () => {
    if (parts.secrets) return parts.secrets;
    // Only the profile name: secrets of a profile without a base URL stay reachable.
    const [{ openSecretStore }, { resolveProfileName }] = await Promise.all([
      import('./secrets/open.js'),
      import('./config/settings.js'),
    ]);
    return openSecretStore({ env, paths: paths(), io: io(), profile: resolveProfileName(globals, env).value });
  });
  const api = once(async () => {
    if (parts.api) return parts.api;
    const resolved = await settings();
    return apiAt(resolved.baseUrl.value);
  });
  // Every client shares how requests travel (SVC_HTTP_TIMEOUT, the proxy variables); each is closed by dispose().
  const network = once(async () => (await import('./net/settings.js')).networkSettings(env));
  const madeClients: ApiClient[] = [];
  const apiAt = async (baseUrl: string) => {
    const [{ createApiClient }, settings] = await Promise.all([import('./api/client.js'), network()]);
    const client = createApiClient({ baseUrl, io: io(), debug, clock: f.clock, network: settings });
    madeClients.push(client);
    return client;
  };
  // Opened once; a failed opening is not kept, so that a long-running command (poll --watch)
  // opens it again once the team's database answers.
  let ledgerOpening: Promise<LedgerStore> | undefined;
  const openLedgerOnce = async (): Promise<LedgerStore> => {
    if (parts.ledger) return parts.ledger;
    ledgerMade = true;
    const [{ openLedger }, { databaseUrlOf, profileDir }] = await Promise.all([import('./store/open.js'), import('./config/profile-dir.js')]);
    return openLedger({ databaseUrl: await databaseUrlOf(f), stateDir: paths().stateDir, profileDir: profileDir(f), env, io: io() });
  };
  const ledger = (): Promise<LedgerStore> => {
    ledgerOpening ??= openLedgerOnce().catch((error: unknown) => {
      ledgerOpening = undefined;
      throw error;
    });
    return ledgerOpening;
  };
  const prompter = once(() => createPrompter(io()));
  let ledgerMade = false;
  const f: Factory = {
    env,
    globals,
    get io() {
      return io();
    },
    get paths() {
      return paths();
    },
    clock: parts.clock ?? systemClock,
    debug,
    openUrl: parts.openUrl,
    stopSignal: parts.stopSignal ?? processStopSignal,
    config,
    settings,
    secrets,
    api,
    apiAt,
    ledger,
    prompter,
    async dispose() {
      await Promise.all(madeClients.map((client) => client.close()));
      if (ledgerMade) await (await ledgerOpening?.catch(() => undefined))?.close();
    },
  };
  return f;
}
