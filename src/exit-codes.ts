// What each exit code means (docs/contract.md: "Exit codes"): the one table `msgr --help`, `msgr
// help exit-codes`, the manual's tables and the man pages are made from. A leaf: plain strings,
// formatted where they are shown (commands/help/topics.ts, src/reference/); the codes themselves
// are src/errors.ts's ExitCode.

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
  {
    code: 8,
    meaning: 'outside the send window: nothing more can leave until it opens (--exit-when-closed; send with --window)',
    rerun: 'when it opens',
    more: 'A bulk run prints the command that resumes it (the next opening is in the message); a cron line runs it again and it goes on where it stopped. A deadline (--stop-at) that passes is not this code: the rows not sent by then end the run with 7.',
  },
  { code: 130, meaning: 'interrupted (Ctrl-C, SIGTERM, SIGHUP); a bulk run can be resumed, nothing in doubt', rerun: 'with --resume', more: 'A bulk run also stops so on a full disk.' },
];
