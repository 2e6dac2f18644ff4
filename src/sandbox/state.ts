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
  readonly init: () => T;
}

/** For a route group's own data: `const grants = defineSlice(() => new Map<string, Grant>())`. */
export function defineSlice<T>(init: () => T): Slice<T> {
  return { init };
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
}

export function createSandboxState(fixture: Fixture): SandboxState {
  const companies = new Map<string, Company>();
  const stores = new Map<string, Store>();
  const users = new Map<string, User>();
  const clientApplications = new Map<string, ClientApplication>();
  const customers = new Map<string, Customer>();
  const devices = new Map<string, Device>();
  const apiKeys = new Map<string, string>();
  const slices = new Map<Slice<unknown>, unknown>();

  // Maps are refilled in place so that a reference taken before a reset stays valid.
  const seed = () => {
    for (const map of [companies, stores, users, clientApplications, customers, devices, apiKeys]) map.clear();
    slices.clear();
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
    storesOf: (companyId) => [...stores.values()].filter((s) => s.companyId === companyId),
    devicesOf: (customerId) => [...devices.values()].filter((d) => d.customerId === customerId),
    slice<T>(slice: Slice<T>): T {
      if (!slices.has(slice)) slices.set(slice, slice.init());
      return slices.get(slice) as T;
    },
    reset: seed,
  };
}
