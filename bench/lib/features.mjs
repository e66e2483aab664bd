// Feature detection: send-bulk and the sandbox land in parallel with this bench, so a section
// asks the msgr it measures for a command's --help and skips what is not there yet.
import { spawnSync } from 'node:child_process';
import { MSGR, NODE, ROOT } from './config.mjs';
import { benchEnv } from './processes.mjs';

const helpCache = new Map();
export function commandHelp(command) {
  if (!helpCache.has(command)) {
    const r = spawnSync(NODE, [MSGR, command, '--help'], { cwd: ROOT, env: benchEnv(), encoding: 'utf8', timeout: 30_000 });
    // An unknown command's --help prints the program's help with exit 0: look for its own usage line.
    const ok = r.status === 0 && new RegExp(`Usage: msgr ${command}\\b`).test(r.stdout);
    helpCache.set(command, ok ? r.stdout : undefined);
  }
  return helpCache.get(command);
}
export const hasFlag = (help, flag) => help !== undefined && new RegExp(`(^|[\\s,])${flag}\\b`, 'm').test(help);
