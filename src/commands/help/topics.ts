// The text of `msgr help <topic>` for the topics written in code, made from the tables that the
// manual is generated from too (src/exit-codes.ts, src/environment.ts). Functions of the width
// they are shown at: main.ts prints the exit codes under the top-level help from the same table.
import { ENVIRONMENT } from '../../environment.js';
import { EXIT_CODES } from '../../exit-codes.js';
import { DEFAULT_COLUMNS, wrap, wrapPage } from '../../output/wrap.js';
/** The short list under `msgr --help`, fitted to `width` (80 off a terminal). */
export function exitCodesHelp(width = DEFAULT_COLUMNS): string {
  const rows = EXIT_CODES.map(({ code, meaning }) => wrap(`  ${String(code).padEnd(5)}${meaning}`, width, { hang: 5 }));
  return `\nExit codes:\n${rows.join('\n')}\n`;
}

export function exitCodesTopic(width = DEFAULT_COLUMNS): string {
  const rows = EXIT_CODES.map(({ code, meaning, rerun, more }) => wrap(`  ${String(code).padEnd(4)}  ${rerun.padEnd(13)}  ${more !== undefined ? `${meaning}. ${more}` : meaning}`, width, { hang: 21 }));
  return wrapPage(`msgr exit codes: what happened, and whether running the same command again is safe.

  code  run again?     meaning
${rows.join('\n')}

A 2xx answer is "accepted", never "delivered". Only failures that provably did not reach the API (no connection, 429, 503 with Retry-After) are retried by msgr itself, a connection briefly (3 attempts within 10 s; a host name that does not exist not at all); anything that may have been processed is exit 6, for you to check. With --json every failure also prints one document on stdout:
  {"error": {"message", "hint", "exitCode"}}
with "status" and "body" for an HTTP error; a bulk run prints its summary instead, with "exitCode" at the top level.

In a script:
  msgr send ... --json > out.json
  case $? in
    0) ;;
    5) echo 'not sent: run again later' ;;
    6) echo 'check before sending again' ;;
    *) exit 1 ;;
  esac
`, width);
}

export function environmentTopic(width = DEFAULT_COLUMNS): string {
  const rows = ENVIRONMENT.map(([names, meaning]) => `  ${names}\n${wrap(`      ${meaning}`, width, { hang: 0 })}`);
  return wrapPage(`Environment variables msgr reads.

Precedence, highest first: command-line flag > environment variable > selected profile > built-in default. msgr profile show prints every resolved setting and where it came from.

${rows.join('\n')}

Example (a container or CI job: everything from the environment, the key from the CI's secrets):
  MSGR_BASE_URL=https://eu.api.example.com MSGR_ACCOUNT_REFERENCE=ACME \\
  MSGR_API_KEY=$KEY \\
    msgr send --to +447911123456 --from Acme --text 'Deployed'
`, width);
}

export interface ConfigPaths {
  readonly profileFile: string;
  readonly stateDir: string;
  readonly override: string | undefined;
}

export function configTopic(p: ConfigPaths, width = DEFAULT_COLUMNS): string {
  // A file, then what it is, under it; the paths may be wider than the page (output/wrap.ts).
  const item = (name: string, path: string, what: string): string => `${wrap(`  ${name.padEnd(16)}${path}`, width, { hang: 16 })}\n${wrap(`${' '.repeat(18)}${what}`, width, { hang: 0 })}`;
  const place = (line: string): string => wrap(line, width, { lead: ' '.repeat(20) });
  const bullet = (text: string): string => wrap(`  - ${text}`, width);
  return `${wrapPage('Files and folders msgr keeps.', width)}

${item('profile store', p.profileFile, 'one JSON file (0600, in a 0700 folder): profiles, their keys, the default profile. Changed only through msgr profile add|set|unset|use|remove, under a lock (config.json.lock beside it).')}
${item('bulk run state', `${p.stateDir}/runs/<file name>-<hash of its real path>/`, 'per input file: journal.jsonl (what was sent, for --resume), its lock, the spooled stdin; --journal PATH puts a journal elsewhere (its path is left here, so a run without --journal knows of it).')}
${item('events', `${p.stateDir}/events/<account>.jsonl`, 'what msgr listen received (0600), one JSON line per event; <account>.token beside it is the listener\'s token. <account> is _all when none is set.')}
${item('opt-outs', `${p.stateDir}/optouts/<account>.jsonl`, 'the numbers not to message (0600), every change with its time and evidence; those in _all.jsonl apply to every account. send and send-bulk leave them out by default (docs/optouts.md).')}
${p.override !== undefined ? `\n${wrap(`All of them are under MSGR_CONFIG_DIR=${p.override} here.`, width, { hang: 0 })}\n` : ''}
Defaults when MSGR_CONFIG_DIR is unset:
${[
    '  Linux    profiles $XDG_CONFIG_HOME/msgr (~/.config/msgr)',
    '           state    $XDG_STATE_HOME/msgr (~/.local/state/msgr)',
    '  macOS    profiles ~/Library/Preferences/msgr',
    '           state    ~/Library/Application Support/msgr',
    '  Windows  profiles %APPDATA%\\msgr\\Config',
    '           state    %LOCALAPPDATA%\\msgr',
  ].map(place).join('\n')}

Moving them:
${bullet('MSGR_CONFIG_DIR=/path puts both in that folder (containers, a service user, tests):')}
      export MSGR_CONFIG_DIR=/srv/msgr; msgr profile list
${bullet('To move profiles to another machine, copy config.json into the new folder (keep it 0600; msgr tightens a copy that is open to others, and warns) or add them again with msgr profile add.')}
${bullet('A bulk run\'s state belongs to its input file\'s real path (symlinks resolved): finish or --restart a run before moving the CSV file, or resume it with --journal PATH.')}
${bullet('msgr never resets a damaged profile file: fix it, or move it aside and add the profiles again.')}
`;
}

