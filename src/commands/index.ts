// The command table main.ts registers from. Each entry's index.ts imports only commander; its
// options and run load when the command runs (docs/design.md).
import type { Command } from 'commander';
import type { Context } from '../context.js';
import { registerDoctor } from './doctor/index.js';
import { registerApi } from './api/index.js';
import { registerCompletion } from './completion/index.js';
import { registerHelp } from './help/index.js';
import { registerListen } from './listen/index.js';
import { registerOptout } from './optout/index.js';
import { registerProfile } from './profile/index.js';
import { registerRuns } from './runs/index.js';
import { registerSandbox } from './sandbox/index.js';
import { registerSegments } from './segments/index.js';
import { registerSendBulk } from './send-bulk/index.js';
import { registerSend } from './send/index.js';
import { registerTrigger } from './trigger/index.js';

/** Commands that need the whole tree registered (they describe it). */
export const WHOLE_TREE: ReadonlySet<string> = new Set(['help', 'completion', '__complete']);

export type Register = (program: Command, ctx: Context) => void;

export const COMMANDS: ReadonlyArray<readonly [name: string, register: Register]> = [
  ['send', registerSend],
  ['send-bulk', registerSendBulk],
  ['runs', registerRuns],
  ['profile', registerProfile],
  ['sandbox', registerSandbox],
  ['listen', registerListen],
  ['optout', registerOptout],
  ['trigger', registerTrigger],
  ['doctor', registerDoctor],
  ['segments', registerSegments],
  ['api', registerApi],
  ['completion', registerCompletion],
  ['help', registerHelp],
];
