// PLACEHOLDER: being written.
import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerCompletion(_program: Command, _ctx: CommandContext): void {}
