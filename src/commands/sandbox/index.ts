// PLACEHOLDER: being written.
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerSandbox(_program: Command, _ctx: CommandContext): void {}
