// How a noun's command definitions reach their verbs: each action hands typed options to
// `ctx.run`, which builds the factory from the global flags and lazy-imports the verb's
// module. Tests pass a context whose `run` records the options instead (gh's runF).
import type { Command } from 'commander';
import type { Factory, GlobalOptions } from '../factory.js';

export interface Verb<O> {
  run(opts: O, f: Factory): Promise<void>;
}

export type VerbLoader<O> = () => Promise<Verb<O>>;

export interface CommandContext {
  run<O>(cmd: Command, load: VerbLoader<O>, opts: O): Promise<void>;
}

export function globalsOf(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals() as Partial<GlobalOptions>;
  return {
    profile: o.profile,
    baseUrl: o.baseUrl,
    json: Boolean(o.json),
    input: o.input !== false,
    debug: Boolean(o.debug),
    color: o.color !== false,
    ...(typeof o.grant === 'string' ? { grant: o.grant } : {}),
  };
}
