// The text of `msgr help <topic>`, and the tables the manual is generated from (docs/commands/,
// the exit-code tables in README.md and docs/contract.md, by `npm run docs`). Plain strings and
// functions: main.ts prints the exit codes under the top-level help from the same table, so
// nothing here is formatted before it is shown, and then for the width it is shown at.
import { DEFAULT_COLUMNS, wrap, wrapPage } from '../../output/wrap.js';

export interface ExitCodeRow {
  readonly code: number;
  /** One line, for `msgr --help`. */
  readonly meaning: string;
  /** Whether running the same command again is safe. */
  readonly rerun: string;
  /** What else ends with this code: `msgr help exit-codes` and the manual's tables. */
  readonly more?: string;
}

export const EXIT_CODES: readonly ExitCodeRow[] = [
  {
    code: 0,
    meaning: 'everything was accepted, or nothing was left to do',
    rerun: '-',
    more: 'That is: --resume of a finished run, a --once key already done, or (send-bulk) a --once key another msgr is sending now.',
  },
  { code: 1, meaning: 'unexpected internal error (a bug: please report it)', rerun: '-', more: 'Run the command again with --verbose for the stack trace to report.' },
  {
    code: 2,
    meaning: 'usage, input or configuration error; nothing was sent',
    rerun: 'after fixing',
    more: 'Also: a file run again that would message numbers its earlier runs accepted, without --skip-sent or --again; a --once key used for another message or other data; a base URL that ends in /v2; a bulk run stopped at its first answer by a 3xx, 404 or 405 (the base URL is wrong; its rows not sent; 7 once rows were accepted); a bulk run refused because another msgr is running the same file, or beside an unfinished run of the file (its --dry-run or --preview too, which predict the refusal); a bulk run (with or without --once) whose msgr on this host is stopped (suspended with Ctrl-Z: its lock untouched for 10 minutes), said even under -q, so that a cron line does not pass it by in silence day after day; with --allow-duplicates, a number an earlier run reached whose journal does not say which of its messages it had; a send to a number with a possible opt-out no one has decided on (msgr optout possible); an opt-out store with lines that are not records (msgr optout repair); a bulk run of a file the journal of whose last run cannot be read; a new run under --once whose data is the same as that of an earlier run under another key, without --same-data; a proxy that refused the tunnel (missing or wrong proxy credentials, 407 or 401; its policy, 403; any other 4xx to CONNECT; an https:// proxy URL for a proxy that takes plain HTTP).',
  },
  { code: 3, meaning: 'the API refused the key or the account (401, 403)', rerun: 'after fixing' },
  { code: 4, meaning: 'the API rejected the request (any other 4xx, or a redirect)', rerun: 'after fixing', more: 'msgr does not follow a redirect (the key would go to the address it names).' },
  {
    code: 5,
    meaning: 'not sent, temporary (no connection, TLS refused, or 429/503 retries exhausted)',
    rerun: 'yes',
    more: 'A bulk run continues with --resume. Also: the proxy down, unresolvable or dropping the connection before the tunnel is up, or unable to reach the API (5xx to CONNECT); a bulk run stopped because the API could not be reached, with nothing in doubt, whatever it had accepted before.',
  },
  {
    code: 6,
    meaning: 'outcome unknown: a request left but no answer came (timeout, reset, 500/502/504; for send and api, a second Ctrl-C)',
    rerun: 'check first',
    more: 'Through a proxy, only once the tunnel was up. A bulk run in that case ends 7.',
  },
  {
    code: 7,
    meaning: 'a bulk run ended with rows not accepted: rejected, not sent or in doubt (see the report)',
    rerun: 'with --resume',
    more: 'Also a stopped bulk run that left batches in doubt: check those rows first (msgr runs show); and a bulk run stopped by a 3xx, 404 or 405 once rows were accepted.',
  },
  { code: 130, meaning: 'interrupted (Ctrl-C, SIGTERM, SIGHUP); a bulk run can be resumed, nothing in doubt', rerun: 'with --resume', more: 'A bulk run also stops so on a full disk.' },
];

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

/** Every variable msgr reads (test/e2e/help.test.ts checks this list against the source). */
export const ENVIRONMENT: ReadonlyArray<readonly [names: string, meaning: string]> = [
  ['MSGR_PROFILE', 'the profile to use (as -p); else the default profile, else the only one'],
  ['MSGR_BASE_URL', 'the regional API base URL (as --base-url)'],
  ['MSGR_ACCOUNT_REFERENCE', 'the accountReference (as --account)'],
  ['MSGR_API_KEY', 'the API key; --api-key-file and --api-key-stdin override it. There is no --api-key flag'],
  ['MSGR_DEFAULT_COUNTRY', 'ISO country national numbers are read in (as --default-country), e.g. GB'],
  ['MSGR_CONFIG_DIR', 'moves the profile store and the bulk run state to this folder (msgr help config)'],
  ['MSGR_SANDBOX_API_KEY', 'msgr sandbox: accept only this key (as --api-key of the sandbox)'],
  ['MSGR_LISTEN_TOKEN', 'msgr listen: the token requests must carry (as --token; else one msgr makes and keeps); msgr trigger posts with it'],
  ['MSGR_LISTEN_PORT', 'msgr listen: the port to listen on (as --port; else 4020), and the port of msgr trigger\'s default URL: one setting for a machine where 4020 is taken'],
  ['MSGR_FORWARD_TO', 'msgr listen: the app to forward events to (as --forward-to), out of ps when it holds a password'],
  ['MSGR_WEBHOOK_URL', 'where the sandbox (msgr sandbox, send --sandbox, send-bulk --sandbox) posts its events and msgr trigger its event (as --webhook-url, --url), out of ps: the URL holds the listener\'s token'],
  ['MSGR_BULK_PARALLEL_MIN_BYTES', 'send-bulk: files at least this big are checked by two threads; "off" turns that off'],
  ['HTTPS_PROXY, https_proxy', 'proxy for https:// base URLs (http:// or https:// proxy URL, credentials allowed)'],
  ['HTTP_PROXY, http_proxy', 'proxy for http:// base URLs (loopback only), and for https when HTTPS_PROXY is unset'],
  ['NO_PROXY, no_proxy', 'hosts that bypass the proxy (comma list; no CIDR ranges)'],
  ['MSGR_CA_FILE', 'PEM file of extra trusted CAs (as --ca-file; else the profile\'s ca-file), added to the default roots'],
  ['NODE_EXTRA_CA_CERTS', 'extra trusted CAs for Node as a whole; --ca-file adds to them for one command'],
  ['NODE_USE_SYSTEM_CA', '1: Node also trusts the operating system\'s certificate store (Node 22.19+, 24.6+, 25+)'],
  ['NO_COLOR', 'any value: no colour'],
  ['FORCE_COLOR', '0 no colour; 1, 2 or 3 colour levels even without a terminal'],
  ['TERM, COLORTERM', 'TERM=dumb: no colour; COLORTERM=truecolor: 24-bit colour'],
  ['XDG_CONFIG_HOME, APPDATA', 'where the profile store lives when MSGR_CONFIG_DIR is unset (Linux, Windows)'],
  ['XDG_STATE_HOME, LOCALAPPDATA', 'where bulk run state lives when MSGR_CONFIG_DIR is unset (Linux, Windows)'],
  ['HOME', 'the base of the default folders above'],
  ['CI', 'any value: no spinner (progress lines only with --verbose)'],
  ['MSGR_WRITE_CODE_CACHE', 'used by the build only (it records compiled code for Node 20); never set it yourself'],
];

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

export const TOPICS: ReadonlyArray<readonly [name: string, summary: string]> = [
  ['exit-codes', 'what each exit code means, and whether running again is safe'],
  ['environment', 'every environment variable msgr reads'],
  ['config', 'the files and folders msgr keeps, and how to move them'],
];
