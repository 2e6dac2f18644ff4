// A stand-in for @napi-rs/keyring that keeps items in a map and can misbehave the ways the
// real library does: a constructor that throws (no Secret Service), reads that say "not
// found" for anything, reads that return another value, and calls that never answer.
import type { KeyringEntry, KeyringModule } from '../../src/secrets/keychain.js';

export interface FakeBehaviour {
  construct?: () => void;
  get?: (stored: string | undefined) => string | null | Promise<string | null>;
  hang?: boolean;
}

export interface FakeKeyring {
  module: KeyringModule;
  /** `service/account` → value */
  items: Map<string, string>;
  entries: { service: string; account: string; options: unknown }[];
  signals: AbortSignal[];
}

export function fakeKeyring(behaviour: FakeBehaviour = {}): FakeKeyring {
  const items = new Map<string, string>();
  const entries: FakeKeyring['entries'] = [];
  const signals: AbortSignal[] = [];
  // Like the native addon, a hung call ignores its abort signal.
  const answer = <T>(signal: AbortSignal | undefined, work: () => T | Promise<T>): Promise<T> => {
    if (signal) signals.push(signal);
    return behaviour.hang ? new Promise<T>(() => {}) : Promise.resolve().then(work);
  };
  class AsyncEntry implements KeyringEntry {
    private readonly id: string;
    constructor(service: string, account: string, options?: unknown) {
      behaviour.construct?.();
      entries.push({ service, account, options });
      this.id = `${service}/${account}`;
    }
    getPassword(signal?: AbortSignal) {
      return answer(signal, () => (behaviour.get ? behaviour.get(items.get(this.id)) : (items.get(this.id) ?? null)));
    }
    setPassword(password: string, signal?: AbortSignal) {
      return answer(signal, () => {
        items.set(this.id, password);
      });
    }
    deletePassword(signal?: AbortSignal) {
      return answer(signal, () => items.delete(this.id));
    }
  }
  return { module: { AsyncEntry }, items, entries, signals };
}
