// argv → the message options `send` and `send-bulk` share (declared in flags.ts,
// addMessageOptions), and the rule both apply to --include-opted-out.
import { UsageError } from '../../errors.js';
import { parseEncoding, type FileEncoding } from '../../message/text-file.js';
import { bool, list, str, type Raw } from './option-values.js';

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
