// argv → options for `send` (and the connection part shared with `send-bulk`). Commander gives
// strings, booleans and string arrays; this turns its option bag into typed options, naming the
// flag in every error. Hand-written rather than zod: this runs on every send, and zod's import
// alone would cost more than the rest of a dry run (docs/performance.md; docs/design.md).
import type { Context } from '../../context.js';
import { fileHint, fileProblem, UsageError } from '../../errors.js';
import { parseEncoding, type FileEncoding } from '../../message/text-file.js';
import { verbosity } from '../../output/ui.js';
import { bool, list, onceKey, parseTimeout, str, type Raw } from '../shared/option-values.js';

export interface ConnectionOptions {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  account?: string | undefined;
  apiKeyFile?: string | undefined;
  apiKeyStdin?: boolean | undefined;
  /** Milliseconds; from --timeout seconds, default 30 s. */
  timeout: number;
  caFile?: string | undefined;
  sandbox?: boolean | undefined;
  /** With --sandbox: where the emulator posts its events. */
  webhookUrl?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  verbose?: boolean | undefined;
  yes?: boolean | undefined;
}

export interface MessageOptions {
  channel?: string | undefined;
  from?: string | undefined;
  text?: string | undefined;
  textFile?: string | undefined;
  textEncoding?: FileEncoding | undefined;
  template?: string | undefined;
  meta?: string[] | undefined;
  name?: string | undefined;
  characterSet?: string | undefined;
  messageType?: string | undefined;
  validity?: string | undefined;
  defaultCountry?: string | undefined;
  /** --allow-unlisted-numbers */
  allowUnlistedNumbers?: boolean | undefined;
  /** --include-opted-out: send to numbers in the opt-out store too (needs --yes). */
  includeOptedOut?: boolean | undefined;
  dryRun?: boolean | undefined;
}

export interface SendOptions extends ConnectionOptions, MessageOptions {
  to?: string[] | undefined;
  contact?: string[] | undefined;
  var?: string[] | undefined;
  input?: string | undefined;
  /** --once: the campaign key the message is sent once under (src/once/send.ts). */
  once?: string | undefined;
}

export function parseConnectionOptions(raw: Raw): ConnectionOptions {
  verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const webhookUrl = str(raw, 'webhookUrl');
  if (webhookUrl !== undefined && bool(raw, 'sandbox') !== true) {
    throw new UsageError('--webhook-url needs --sandbox: it is where the built-in emulator posts its events', { hint: 'Add --sandbox, or register the URL with your provider for real events (docs/events.md).' });
  }
  return {
    profile: str(raw, 'profile'),
    baseUrl: str(raw, 'baseUrl'),
    account: str(raw, 'account'),
    apiKeyFile: str(raw, 'apiKeyFile'),
    apiKeyStdin: bool(raw, 'apiKeyStdin'),
    timeout: parseTimeout(str(raw, 'timeout')),
    caFile: str(raw, 'caFile'),
    sandbox: bool(raw, 'sandbox'),
    ...(webhookUrl !== undefined ? { webhookUrl } : {}),
    json: bool(raw, 'json'),
    quiet: bool(raw, 'quiet'),
    verbose: bool(raw, 'verbose'),
    yes: bool(raw, 'yes'),
  };
}

export function parseMessageOptions(raw: Raw): MessageOptions {
  return {
    channel: str(raw, 'channel'),
    from: str(raw, 'from'),
    text: str(raw, 'text'),
    textFile: str(raw, 'textFile'),
    textEncoding: textEncoding(str(raw, 'textEncoding')),
    template: str(raw, 'template'),
    meta: list(raw, 'meta'),
    name: str(raw, 'name'),
    characterSet: str(raw, 'characterSet'),
    messageType: str(raw, 'messageType'),
    validity: str(raw, 'validity'),
    defaultCountry: str(raw, 'defaultCountry'),
    allowUnlistedNumbers: bool(raw, 'allowUnlistedNumbers'),
    includeOptedOut: bool(raw, 'includeOptedOut'),
    dryRun: bool(raw, 'dryRun'),
  };
}

/**
 * --include-opted-out sends to people who asked not to be messaged: it takes --yes as well, on a
 * terminal too, so that it is always a decision written in the command, never a prompt answered
 * out of habit (docs/optouts.md: "Sending").
 */
export function checkIncludeOptedOut(includeOptedOut: boolean | undefined, yes: boolean | undefined): void {
  if (includeOptedOut === true && yes !== true) {
    throw new UsageError('--include-opted-out sends to numbers that opted out: it needs --yes as well; nothing was sent', {
      hint: 'Add --yes to send to them on purpose, or leave --include-opted-out out (their numbers are then left out, and counted as suppressed).',
    });
  }
}

function textEncoding(value: string | undefined): FileEncoding | undefined {
  if (value === undefined) return undefined;
  const encoding = parseEncoding(value);
  if (encoding === undefined) {
    throw new UsageError(`--text-encoding: "${value}" is not supported`, { hint: 'Use utf8 (the default), latin1 (Windows-1252), utf16le or utf16be. Files with a byte-order mark are recognised by themselves.' });
  }
  return encoding;
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
  };
}

/** Splits repeated, comma-separated list values: `--to a,b --to c` → [a, b, c]. */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Reads a file named by a flag, with an error that names the flag and the file. */
export async function readFlagFile(flag: string, path: string, ctx: Context): Promise<string> {
  if (path === '-') return readStdin(ctx);
  try {
    return await (await import('node:fs/promises')).readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
}

export async function readStdin(ctx: Context): Promise<string> {
  let text = '';
  for await (const chunk of ctx.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}
