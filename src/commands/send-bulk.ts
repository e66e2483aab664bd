import type { Command } from 'commander';
import type { Context } from '../context.js';

// Placeholder registration; the command lands with its issue.
export function registerSendBulk(_program: Command, _ctx: Context): void {}
