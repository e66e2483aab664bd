// argv → options for `msgr listen`, every refusal naming its flag (replay's: replay/options.ts).
import { UsageError } from '../../errors.js';
import type { FieldPaths } from '../../events/fields.js';
import { forwardTarget, type ForwardTarget } from '../../events/forward.js';
import { checkToken, DEFAULT_HOST, DEFAULT_LISTEN_PORT } from '../../events/token.js';
import { durationMs } from '../../message/request-fields/validity.js';
import { verbosity } from '../../output/ui.js';
import { bool, int, str, type Raw } from '../shared/option-values.js';
import { fieldPaths } from '../shared/field-paths.js';

export const DEFAULT_WARN_AFTER_MS = 2 * 60_000;

export interface AccountFlags {
  readonly profile?: string | undefined;
  readonly account?: string | undefined;
}

export interface ListenOptions extends AccountFlags {
  readonly port: number;
  readonly host: string;
  readonly token?: string | undefined;
  readonly printUrl: boolean;
  readonly printToken: boolean;
  readonly out?: string | undefined;
  readonly maxBodyBytes?: number | undefined;
  readonly dedupWindowMs?: number | undefined;
  readonly forwardTo?: ForwardTarget | undefined;
  /** --forward-to came on the command line (not MSGR_FORWARD_TO): visible in `ps` while it runs. */
  readonly forwardToInArgv: boolean;
  readonly warnAfterMs: number;
  /** `true`: the account's store; a string: a plain list at that path; undefined: no opt-outs. */
  readonly optouts?: true | string | undefined;
  readonly stopWords?: readonly string[] | undefined;
  readonly startWords?: readonly string[] | undefined;
  readonly allowStart: boolean;
  readonly undeliverable: boolean;
  readonly permanentCodes: readonly string[];
  readonly defaultCountry?: string | undefined;
  readonly fields: FieldPaths;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}


function words(raw: Raw, key: string): string[] | undefined {
  const v = str(raw, key);
  if (v === undefined) return undefined;
  const out = v.split(',').map((w) => w.trim()).filter((w) => w !== '');
  if (out.length === 0) throw new UsageError(`--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: give at least one word`, { hint: 'For example --stop-words STOP,ARRET,BASTA' });
  return out;
}

const target = (value: string | undefined): ForwardTarget | undefined => (value === undefined ? undefined : forwardTarget(value));

/** `256k`, `4m`, `65536`: bytes, from 1 KiB to 64 MiB. */
export function parseSize(value: string): number | undefined {
  const m = /^(\d+)\s*(k|kb|kib|m|mb|mib)?$/i.exec(value.trim());
  if (m === null) return undefined;
  const unit = (m[2] ?? '').charAt(0).toLowerCase();
  const n = Number(m[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1);
  return n >= 1024 && n <= 64 * 1024 * 1024 ? n : undefined;
}

function duration(raw: Raw, key: string, flag: string, allowZero: boolean): number | undefined {
  const v = str(raw, key);
  if (v === undefined) return undefined;
  if (allowZero && v.trim() === '0') return 0;
  const ms = durationMs(v);
  if (ms === undefined || ms <= 0) throw new UsageError(`${flag}: "${v}" is not a duration`, { hint: `Give seconds, minutes, hours or days: 30s, 10m, 2h, 1d${allowZero ? ' (0 turns it off)' : ''}.` });
  return ms;
}

export function parseListenOptions(raw: Raw): ListenOptions {
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const token = str(raw, 'token');
  const maxBody = str(raw, 'maxBody');
  const maxBodyBytes = maxBody === undefined ? undefined : parseSize(maxBody);
  if (maxBody !== undefined && maxBodyBytes === undefined) throw new UsageError(`--max-body: "${maxBody}" is not a size from 1k to 64m`, { hint: 'For example --max-body 256k or --max-body 4m.' });
  const optoutsRaw = raw.optouts;
  if (optoutsRaw === '') throw new UsageError('--optouts: the file name is empty', { hint: 'Give --optouts alone for the opt-out store, or --optouts FILE for a plain list.' });
  const optouts = optoutsRaw === true ? true : typeof optoutsRaw === 'string' ? optoutsRaw : undefined;
  const opts: ListenOptions = {
    port: int(raw, 'port', 0, 65535) ?? DEFAULT_LISTEN_PORT,
    host: (str(raw, 'host') ?? DEFAULT_HOST).replace(/^\[(.*)\]$/, '$1'),
    token: token === undefined ? undefined : checkToken(token, '--token'),
    printUrl: bool(raw, 'printUrl') === true,
    printToken: bool(raw, 'printToken') === true,
    out: str(raw, 'out'),
    maxBodyBytes,
    dedupWindowMs: duration(raw, 'dedupWindow', '--dedup-window', true),
    forwardTo: target(str(raw, 'forwardTo')),
    forwardToInArgv: bool(raw, 'forwardToInArgv') === true,
    warnAfterMs: duration(raw, 'warnAfter', '--warn-after', false) ?? DEFAULT_WARN_AFTER_MS,
    optouts,
    stopWords: words(raw, 'stopWords'),
    startWords: words(raw, 'startWords'),
    // A start word opts back in by default (CTIA); --ignore-start turns that off.
    allowStart: bool(raw, 'ignoreStart') !== true,
    undeliverable: bool(raw, 'undeliverable') === true,
    permanentCodes: (str(raw, 'permanentCodes') ?? '').split(',').map((c) => c.trim()).filter((c) => c !== ''),
    defaultCountry: str(raw, 'defaultCountry'),
    profile: str(raw, 'profile'),
    account: str(raw, 'account'),
    fields: fieldPaths(raw),
    json: bool(raw, 'json') === true,
    quiet,
    verbose,
  };
  if (opts.printUrl && opts.printToken) throw new UsageError('--print-url and --print-token cannot be used together', { hint: 'The URL holds the token; give one of them.' });
  if (opts.printUrl && opts.port === 0) throw new UsageError('--print-url needs a fixed --port: with 0 the port is only known once the listener runs', { hint: 'Give --port 4020 (the default) or another, to both commands.' });
  if (bool(raw, 'ignoreStart') === true && bool(raw, 'allowStart') === true) throw new UsageError('--allow-start and --ignore-start cannot be used together', { hint: 'A start word opts back in by default; --ignore-start shows it without applying it.' });
  const optoutFlag = [bool(raw, 'allowStart') === true ? '--allow-start' : '', bool(raw, 'ignoreStart') === true ? '--ignore-start' : '', opts.undeliverable ? '--undeliverable' : '', opts.stopWords !== undefined ? '--stop-words' : '', opts.startWords !== undefined ? '--start-words' : '', opts.permanentCodes.length > 0 ? '--permanent-codes' : ''].find((f) => f !== '');
  if (optoutFlag !== undefined && opts.optouts === undefined) throw new UsageError(`${optoutFlag} needs --optouts: it says how replies change the opt-outs`, { hint: `For example: msgr listen --optouts ${optoutFlag}` });
  if (opts.permanentCodes.length > 0 && !opts.undeliverable) throw new UsageError('--permanent-codes needs --undeliverable', { hint: 'It names the error codes whose receipts add their number as undeliverable.' });
  return opts;
}
