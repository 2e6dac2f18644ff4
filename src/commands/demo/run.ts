// PLACEHOLDER: the demo is written once the sandbox frame is in.
import type { Factory } from '../../factory.js';

export type DemoOptions = Record<string, never>;

export async function run(_opts: DemoOptions, _f: Factory): Promise<void> {}
