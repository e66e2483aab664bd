// argv → options for `msgr trigger`.
import { UsageError } from '../../errors.js';
import { DEFAULT_LISTEN_PORT } from '../../events/token.js';
import { maskUrl } from '../../output/sanitize.js';
import { verbosity } from '../../output/ui.js';
import { bool, int, list, str, type Raw } from '../shared/option-values.js';

export type TriggerKind = 'delivered' | 'failed' | 'expired' | 'sent' | 'fallback' | 'inbound';
const KINDS: readonly TriggerKind[] = ['delivered', 'failed', 'expired', 'sent', 'fallback', 'inbound'];

export interface TriggerOptions {
  readonly kind: TriggerKind;
  readonly url?: URL | undefined;
  readonly number: string;
  readonly messageId?: string | undefined;
  readonly text: string;
  readonly to: string;
  readonly channel: 'SMS' | 'RCS';
  readonly code?: string | undefined;
  readonly temporary: boolean;
  readonly part?: { readonly index: number; readonly count: number } | undefined;
  readonly set: ReadonlyArray<{ readonly path: string; readonly value: unknown }>;
  readonly profile?: string | undefined;
  readonly account?: string | undefined;
  readonly port: number;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

export function parseTriggerOptions(kind: string, raw: Raw): TriggerOptions {
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const k = KINDS.find((x) => x === kind.toLowerCase());
  if (k === undefined) throw new UsageError(`"${kind}" is not an event msgr trigger sends`, { hint: `Give one of: ${KINDS.join(', ')}.` });
  const urlText = str(raw, 'url');
  let url: URL | undefined;
  if (urlText !== undefined) {
    try {
      url = new URL(urlText);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new UsageError(`--url: "${maskUrl(urlText, { hidePath: true })}" is not an http:// or https:// URL`, { hint: 'For a local listener leave --url out; for another, MSGR_WEBHOOK_URL=URL keeps a token in it out of `ps`.' });
  }
  const channel = (str(raw, 'channel') ?? 'SMS').toUpperCase();
  if (channel !== 'SMS' && channel !== 'RCS') throw new UsageError(`--channel: "${str(raw, 'channel') ?? ''}" is not SMS or RCS`);
  const partText = str(raw, 'part');
  let part: TriggerOptions['part'];
  if (partText !== undefined) {
    const m = /^(\d+)\s*\/\s*(\d+)$/.exec(partText);
    const index = Number(m?.[1]);
    const count = Number(m?.[2]);
    if (m === null || index < 1 || count < 2 || index > count || count > 255) throw new UsageError(`--part: "${partText}" is not i/n with 1 <= i <= n, n from 2 to 255`, { hint: 'For example --part 2/3' });
    if (k === 'inbound' || k === 'fallback') throw new UsageError(`--part is for receipts, not ${k} events`);
    part = { index, count };
  }
  const set = (list(raw, 'set') ?? []).map((s) => {
    const eq = s.indexOf('=');
    const path = eq > 0 ? s.slice(0, eq).trim() : '';
    if (path === '' || !/^[^.\s]+(\.[^.\s]+)*$/.test(path)) throw new UsageError(`--set: "${s}" is not path=value`, { hint: 'For example --set status=DELIVRD or --set data.attempt=2' });
    const text = s.slice(eq + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // Text, as given.
    }
    return { path, value };
  });
  const code = str(raw, 'code');
  const temporary = bool(raw, 'temporary') === true;
  if ((code !== undefined || temporary) && k !== 'failed') throw new UsageError(`${code !== undefined ? '--code' : '--temporary'} is for failed receipts only`);
  return {
    kind: k,
    url,
    number: str(raw, 'number') ?? '+447400900123',
    messageId: str(raw, 'messageId'),
    text: str(raw, 'text') ?? 'Hello',
    to: str(raw, 'to') ?? 'Acme',
    channel,
    code,
    temporary,
    part,
    set,
    profile: str(raw, 'profile'),
    account: str(raw, 'account'),
    port: int(raw, 'port', 1, 65535) ?? DEFAULT_LISTEN_PORT,
    json: bool(raw, 'json') === true,
    quiet,
    verbose,
  };
}
