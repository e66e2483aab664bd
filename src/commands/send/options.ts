// argv → options for `send`. Commander gives strings, booleans and string arrays; this turns its
// option bag into typed options, naming the flag in every error. Hand-written rather than zod:
// this runs on every send, and zod's import alone would cost more than the rest of a dry run
// (docs/performance.md; docs/design.md). The connection and message parts are shared with other
// commands (../shared/).
import { parseConnectionOptions, type ConnectionOptions } from '../shared/connection.js';
import { checkIncludeOptedOut, parseMessageOptions, type MessageOptions } from '../shared/message-options.js';
import { bool, list, onceKey, str, type Raw } from '../shared/option-values.js';

export interface SendOptions extends ConnectionOptions, MessageOptions {
  to?: string[] | undefined;
  contact?: string[] | undefined;
  var?: string[] | undefined;
  input?: string | undefined;
  /** --once: the campaign key the message is sent once under (src/once/one-message.ts). */
  once?: string | undefined;
  /** --gsm-safe: the text's look-alikes replaced with GSM-7 characters (docs/cost-and-canary.md). */
  gsmSafe?: boolean | undefined;
  /** Send windows and deadlines (docs/send-windows.md). */
  window?: string[] | undefined;
  tz?: string | undefined;
  anyTime?: boolean | undefined;
  notBefore?: string | undefined;
  stopAt?: string | undefined;
}

export function parseSendOptions(raw: Raw): SendOptions {
  checkIncludeOptedOut(bool(raw, 'includeOptedOut'), bool(raw, 'yes'));
  return {
    ...parseConnectionOptions(raw),
    ...parseMessageOptions(raw),
    to: list(raw, 'to'),
    contact: list(raw, 'contact'),
    var: list(raw, 'var'),
    input: str(raw, 'input'),
    once: onceKey(raw),
    gsmSafe: bool(raw, 'gsmSafe'),
    window: list(raw, 'window'),
    tz: str(raw, 'tz'),
    anyTime: bool(raw, 'anyTime'),
    notBefore: str(raw, 'notBefore'),
    stopAt: str(raw, 'stopAt'),
  };
}

/** Splits repeated, comma-separated list values: `--to a,b --to c` → [a, b, c]. */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}
