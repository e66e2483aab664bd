// Every environment variable msgr reads: the one table `msgr help environment` and the man pages
// are made from. A leaf: plain strings, formatted where they are shown.

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
  ['MSGR_TEST_CLOCK', 'tests only: msgr\'s clock starts at this instant (ISO 8601) and, with @N, runs N times faster (send windows and deadlines are read on it)'],
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
  ['NODE_OPTIONS, MALLOC_*', 'send-bulk sending a file of 8 MB or more, or stdin from a pipe, on Node 24 and later: msgr starts itself again, same process id, with less memory (--max-semi-space-size=4, glibc\'s MALLOC_TRIM_THRESHOLD_); your own --max-semi-space-size, in NODE_OPTIONS or on node\'s command line, or any MALLOC_ variable of yours, is kept as it is'],
  ['MSGR_WRITE_CODE_CACHE', 'used by the build only (it records compiled code for Node 20); never set it yourself'],
];
