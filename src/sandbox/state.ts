// The sandbox's in-memory data. What the fixture seeds lives in maps by id; what later
// requests create (Grants, tokens, receipts, return requests, subscriptions...) lives in
// slices that the route group owning it declares with `defineSlice`, so adding a feature
// never means editing this file. `reset()` refills the seeded maps from a fresh copy of
// the fixture (undoing edits such as an uploaded public key) and drops every slice.
import type {
  Fixture,
  FixtureClientApplication,
  FixtureCompany,
  FixtureCustomer,
  FixtureDevice,
  FixtureStore,
  FixtureUser,
} from './fixture.js';

export type Company = Omit<FixtureCompany, 'stores'>;
export type Store = FixtureStore & { companyId: string };
export type User = FixtureUser;
export type ClientApplication = FixtureClientApplication;
export type Customer = Omit<FixtureCustomer, 'devices'>;
export type Device = FixtureDevice & { customerId: string };

/** A piece of state and how to make it empty; see `SandboxState.slice`. */
export interface Slice<T> {
  /** Its key in a saved state (`sandbox start --state`): unique, and kept across versions. */
  readonly name: string;
  readonly init: () => T;
  /** false: not saved (rate-limit buckets), so it starts empty after a restart. */
  readonly persist: boolean;
}

const sliceNames = new Set<string>();

/**
 * For a route group's own data: `const grants = defineSlice('grants', () => new Map<string, Grant>())`.
 * Its value must survive `structuredClone` (maps, arrays, plain records, Buffers; no
 * functions or timers), since a saved state is its v8 serialization.
 */
export function defineSlice<T>(name: string, init: () => T, options: { persist?: boolean } = {}): Slice<T> {
  if (sliceNames.has(name)) throw new TypeError(`sandbox slice "${name}" is defined twice`);
  sliceNames.add(name);
  return { name, init, persist: options.persist ?? true };
}

/** What `sandbox start --state` saves: every seeded map and every persisted slice, by name. */
export interface StateData {
  readonly seeded: Readonly<Record<string, readonly (readonly [string, unknown])[]>>;
  readonly slices: Readonly<Record<string, unknown>>;
}

export interface SandboxState {
  /** The fixture as loaded; never modified. */
  readonly fixture: Fixture;
  readonly companies: Map<string, Company>;
  readonly stores: Map<string, Store>;
  readonly users: Map<string, User>;
  readonly clientApplications: Map<string, ClientApplication>;
  readonly customers: Map<string, Customer>;
  readonly devices: Map<string, Device>;
  /** Company API key → company id. */
  readonly apiKeys: Map<string, string>;
  storesOf(companyId: string): Store[];
  devicesOf(customerId: string): Device[];
  /**
   * The slice's current value, created on first use. Look it up on every request rather
   * than keeping it: `reset()` replaces it.
   */
  slice<T>(slice: Slice<T>): T;
  reset(): void;
  /** The data a saved state holds (shared with the live state: serialize it at once). */
  exportData(): StateData;
  /** Replaces everything with saved data (at start, before any request). */
  importData(data: StateData): void;
}

export function createSandboxState(fixture: Fixture): SandboxState {
  const companies = new Map<string, Company>();
  const stores = new Map<string, Store>();
  const users = new Map<string, User>();
  const clientApplications = new Map<string, ClientApplication>();
  const customers = new Map<string, Customer>();
  const devices = new Map<string, Device>();
  const apiKeys = new Map<string, string>();
  // Stores by company, rebuilt whenever `stores` is refilled: a sandbox of thousands of
  // companies (`--companies`) looks a company's stores up on every request.
  let storesByCompany = new Map<string, Store[]>();
  const indexStores = () => {
    storesByCompany = new Map();
    for (const store of stores.values()) {
      const own = storesByCompany.get(store.companyId);
      if (own) own.push(store);
      else storesByCompany.set(store.companyId, [store]);
    }
  };
  // By name, so that a saved state finds its slices again in the next process.
  const slices = new Map<string, { slice: Slice<unknown>; value: unknown }>();
  // Saved slices whose module has not asked for them yet in this process.
  let restored: Record<string, unknown> = {};
  const seededMaps: Record<string, Map<string, unknown>> = { companies, stores, users, clientApplications, customers, devices, apiKeys };

  // Maps are refilled in place so that a reference taken before a reset stays valid.
  const seed = () => {
    for (const map of [companies, stores, users, clientApplications, customers, devices, apiKeys]) map.clear();
    slices.clear();
    restored = {};
    const copy = structuredClone(fixture);
    for (const { stores: own, ...company } of copy.companies) {
      companies.set(company.id, company);
      apiKeys.set(company.apiKey, company.id);
      for (const store of own) stores.set(store.id, { ...store, companyId: company.id });
    }
    for (const user of copy.users) users.set(user.id, user);
    for (const app of copy.clientApplications) clientApplications.set(app.id, app);
    for (const { devices: own, ...customer } of copy.customers) {
      customers.set(customer.id, customer);
      for (const device of own) devices.set(device.id, { ...device, customerId: customer.id });
    }
    indexStores();
  };
  seed();

  return {
    fixture,
    companies,
    stores,
    users,
    clientApplications,
    customers,
    devices,
    apiKeys,
    storesOf: (companyId) => [...(storesByCompany.get(companyId) ?? [])],
    devicesOf: (customerId) => [...devices.values()].filter((d) => d.customerId === customerId),
    slice<T>(slice: Slice<T>): T {
      let entry = slices.get(slice.name);
      if (entry === undefined) {
        const saved = Object.hasOwn(restored, slice.name) ? restored[slice.name] : undefined;
        entry = { slice: slice as Slice<unknown>, value: saved ?? slice.init() };
        slices.set(slice.name, entry);
      }
      return entry.value as T;
    },
    reset: seed,
    exportData() {
      const seeded = Object.fromEntries(Object.entries(seededMaps).map(([name, map]) => [name, [...map.entries()]]));
      const live = Object.fromEntries([...slices.values()].filter((e) => e.slice.persist).map((e) => [e.slice.name, e.value]));
      // A saved slice nobody asked for yet in this process is carried over as it was.
      return { seeded, slices: { ...restored, ...live } };
    },
    importData(data) {
      for (const [name, map] of Object.entries(seededMaps)) {
        const entries = data.seeded[name];
        if (entries === undefined) continue;
        map.clear();
        for (const [key, value] of entries) map.set(key, value);
      }
      indexStores();
      slices.clear();
      restored = { ...data.slices };
    },
  };
}
