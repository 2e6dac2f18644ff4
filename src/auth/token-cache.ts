// Access tokens cached one per Grant and scope, on a shelf: a private SQLite file beside the
// profile's state (src/store/token-file.ts) when secrets are kept in the keychain or the
// secret file, else (credentials from the environment, tests) the secret store itself, one
// entry per Grant (key `token/<id>`) holding a token per scope. A token is reused until 60 s before it expires, so consecutive
// commands make no token request. Renewal happens under a lock in the state dir (an OS lock,
// src/store/lock.ts: released when its holder dies, never taken over from a live one), and
// the cache is read again once the lock is held: of several svc processes that find the
// token expired at once, one asks the service and the others take its answer. For the
// code flow this also keeps two processes from presenting the same refresh token, which the
// service would treat as a replay and answer by revoking the whole token family.
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../contract/zod.js';
import type { Clock } from '../clock.js';
import { sha256Hex } from '../crypto/hash.js';
import type { SecretStore } from '../secrets/store.js';
import { describeHolder, tryLock, withLock, type HeldLock } from '../store/lock.js';
import type { RenewalClaim, StoredTokens, TokenFile } from '../store/token-file.js';

/** A token is renewed when less than this is left, so it cannot expire on the way. */
export const EXPIRY_MARGIN_MS = 60_000;

export const CachedToken = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  /** ISO 8601. */
  expires_at: z.string(),
  /** The scope the service granted. */
  scope: z.string(),
});
export type CachedToken = z.infer<typeof CachedToken>;

const CachedTokens = z.record(z.string(), CachedToken);
type CachedTokens = z.infer<typeof CachedTokens>;

export function tokenKey(id: string): string {
  return `token/${id}`;
}

/** Where the tokens are kept: a Grant's tokens by slot, as JSON. */
export interface TokenShelf {
  /** The token file, whose renewal claims stand in for a lock file per Grant. */
  file?: () => Promise<TokenFile>;
  read(id: string): Promise<StoredTokens>;
  write(id: string, slot: string, value: string): Promise<void>;
  /** One slot, or every slot of the ID; true if there was anything. */
  remove(id: string, slot?: string): Promise<boolean>;
}

/** The private token file (opened on first use). */
export function fileShelf(open: () => Promise<TokenFile>): TokenShelf {
  let file: Promise<TokenFile> | undefined;
  const shelf = () => (file ??= open());
  return {
    file: shelf,
    read: async (id) => (await shelf()).read(id),
    write: async (id, slot, value) => (await shelf()).write(id, slot, value),
    remove: async (id, slot) => (await shelf()).remove(id, slot),
  };
}

/** One secret per Grant (`token/<id>`), a JSON object of its tokens by slot. */
export function secretStoreShelf(secrets: SecretStore): TokenShelf {
  const read = async (id: string): Promise<StoredTokens> => {
    const raw = await secrets.get(tokenKey(id));
    if (raw === null) return {};
    try {
      const parsed = z.record(z.string(), z.unknown()).safeParse(JSON.parse(raw));
      return parsed.success ? Object.fromEntries(Object.entries(parsed.data).map(([slot, token]) => [slot, JSON.stringify(token)])) : {};
    } catch {
      return {};
    }
  };
  const save = async (id: string, tokens: StoredTokens) => {
    if (Object.keys(tokens).length === 0) await secrets.delete(tokenKey(id));
    else await secrets.set(tokenKey(id), JSON.stringify(Object.fromEntries(Object.entries(tokens).map(([slot, token]) => [slot, JSON.parse(token)]))));
  };
  return {
    read,
    // Read, changed and written whole: the cache calls these holding the ID's lock.
    write: async (id, slot, value) => save(id, { ...(await read(id)), [slot]: value }),
    async remove(id, slot) {
      if (slot === undefined) return secrets.delete(tokenKey(id));
      const tokens = await read(id);
      if (!Object.hasOwn(tokens, slot)) return false;
      delete tokens[slot];
      await save(id, tokens);
      return true;
    },
  };
}

export interface TokenCacheOptions {
  shelf: TokenShelf;
  clock: Clock;
  /** Directory of the lock files (created private on first use). */
  lockDir: string;
  /** Keeps the locks of two profiles that share a Grant ID apart. */
  namespace: string;
  pollMs?: number;
  /** Told once when another process is renewing the same token: who, since when. */
  onWait?: (text: string) => void;
}

export interface Acquire {
  id: string;
  /** The cache slot: the requested scope. */
  scope: string;
  /** Ask the service even when the cached token is still good. */
  force?: boolean;
  /** Asks the service for a token; called with the lock held. */
  fetch: () => Promise<CachedToken>;
}

export interface TokenCache {
  /** A token with more than the margin left: the cached one, or a new one from `fetch`. */
  acquire(req: Acquire): Promise<CachedToken>;
  /** The cached tokens of an ID by slot, valid or not. */
  read(id: string): Promise<CachedTokens>;
  /** Stores a token obtained elsewhere (at login). */
  put(id: string, scope: string, token: CachedToken): Promise<void>;
  /** Drops the token of a slot if it is still `accessToken` (a 401 said it is no good). */
  discard(id: string, scope: string, accessToken: string): Promise<void>;
  /** Drops every token of an ID; true if there were any. */
  forget(id: string): Promise<boolean>;
}

/** The last turn for each lock file among this process's callers. */
const IN_PROCESS = new Map<string, Promise<unknown>>();

export function createTokenCache(opts: TokenCacheOptions): TokenCache {
  const { shelf, clock } = opts;
  const lockPath = (id: string) => join(opts.lockDir, `token-${sha256Hex(`${opts.namespace}\0${id}`).slice(0, 32)}.lock`);
  const pollMs = opts.pollMs ?? 50;
  const tellWait = (holder: string) => opts.onWait?.(`waiting for another svc process renewing the token (${holder})`);
  // Across processes: a claim in the token file where there is one (two short transactions
  // a renewal, where a lock file per Grant cost ~3 ms: a SQLite file opened, a holder file
  // written, renamed and removed), else the Grant's lock file.
  const exclusive = <T>(id: string, work: () => Promise<T>): Promise<T> =>
    shelf.file
      ? shelf.file().then((file) => claimed(file, id, opts.lockDir, work, { pollMs, onWait: tellWait }))
      : withLock(lockPath(id), work, { pollMs, onWait: (holder) => tellWait(describeHolder(holder)) });
  // This process's own callers (a batch's workers) queue here, one after the other, and
  // only then claim or lock: so a wait it tells about is another process's doing.
  const locked = <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const path = lockPath(id);
    const turn = (IN_PROCESS.get(path) ?? Promise.resolve()).catch(() => undefined).then(() => exclusive(id, work));
    IN_PROCESS.set(path, turn);
    const done = () => {
      if (IN_PROCESS.get(path) === turn) IN_PROCESS.delete(path);
    };
    turn.then(done, done);
    return turn;
  };

  async function read(id: string): Promise<CachedTokens> {
    const tokens: CachedTokens = {};
    for (const [slot, raw] of Object.entries(await shelf.read(id))) {
      try {
        const parsed = CachedToken.safeParse(JSON.parse(raw));
        // A damaged entry is only a cache miss: the next token request overwrites it.
        if (parsed.success) tokens[slot] = parsed.data;
      } catch {
        // As damaged.
      }
    }
    return tokens;
  }

  const usable = (token: CachedToken | undefined): token is CachedToken =>
    token !== undefined && Date.parse(token.expires_at) - clock.now() > EXPIRY_MARGIN_MS;

  return {
    read,
    async acquire({ id, scope, force = false, fetch }) {
      if (!force) {
        const cached = (await read(id))[scope];
        if (usable(cached)) return cached;
      }
      return locked(id, async () => {
        const cached = (await read(id))[scope];
        if (!force && usable(cached)) return cached;
        const token = await fetch();
        await shelf.write(id, scope, JSON.stringify(token));
        return token;
      });
    },
    put: (id, scope, token) => locked(id, () => shelf.write(id, scope, JSON.stringify(token))),
    discard: (id, scope, accessToken) =>
      locked(id, async () => {
        if ((await read(id))[scope]?.access_token === accessToken) await shelf.remove(id, scope);
      }),
    forget: (id) => shelf.remove(id),
  };
}

// ---- renewal claims -----------------------------------------------------------------------
// A claim names its renewer: this process, by its pid and a nonce of this run, which holds a
// lock of its own (renewer-<pid>-<nonce>.lock in the lock directory) from its first claim to
// its end. A claim whose renewer's lock is free (or gone) is a dead process's: taken over,
// as the OS released the lock file for it. Nothing is guessed from times or pids.

const renewers = new Map<string, Promise<{ owner: string; pid: number }>>();
/**
 * The renewers' held locks, referenced for as long as the process lives: a lock nothing
 * refers to is garbage, and collecting it closes its SQLite connection, which frees the OS
 * lock. Its claims then look dead to every other process, which took them over and asked
 * the service again (12 fan-outs at once over 299 Grants made 395 token requests, not 299;
 * under the code flow, two refreshes of one refresh token).
 */
const heldRenewerLocks: HeldLock[] = [];

function renewerLockPath(lockDir: string, owner: string): string {
  return join(lockDir, `renewer-${owner}.lock`);
}

/** This process as a renewer: its lock taken once, and removed at exit. */
function renewer(lockDir: string): Promise<{ owner: string; pid: number }> {
  let me = renewers.get(lockDir);
  if (me === undefined) {
    me = (async () => {
      const owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
      const path = renewerLockPath(lockDir, owner);
      const held = await tryLock(path, { renewer: true });
      if ('heldBy' in held) throw new Error(`${path} is held by another process`);
      heldRenewerLocks.push(held);
      process.once('exit', () => {
        for (const file of [path, `${path}.holder`]) rmSync(file, { force: true });
      });
      return { owner, pid: process.pid };
    })();
    me.catch(() => renewers.delete(lockDir));
    renewers.set(lockDir, me);
  }
  return me;
}

/** True when the claim's renewer has ended: its lock is free, or gone with it. */
async function renewerDead(lockDir: string, claim: RenewalClaim): Promise<boolean> {
  const path = renewerLockPath(lockDir, claim.owner);
  if (!existsSync(path)) return true;
  const probe = await tryLock(path);
  if ('heldBy' in probe) return false;
  await probe.release();
  for (const file of [path, `${path}.holder`]) rmSync(file, { force: true });
  return true;
}

async function claimed<T>(file: TokenFile, id: string, lockDir: string, work: () => Promise<T>, wait: { pollMs: number; onWait: (holder: string) => void }): Promise<T> {
  const me = await renewer(lockDir);
  let told = false;
  for (;;) {
    const claim = { ...me, since: new Date().toISOString() };
    const standing = file.claim(id, claim);
    // Unclaimed, or this process's own (left by an unclaim that failed: its callers queue before claiming).
    if (standing === undefined || standing.owner === me.owner) break;
    if ((await renewerDead(lockDir, standing)) && file.takeOver(id, standing, claim)) break;
    if (!told) {
      told = true;
      wait.onWait(`pid ${standing.pid} since ${standing.since}`);
    }
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
  }
  try {
    return await work();
  } finally {
    file.unclaim(id, { ...me, since: '' });
  }
}
