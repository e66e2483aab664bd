// The message a bulk run sends to every row: the request without its recipients, checked as
// `send` checks it, and the string frame the send pass puts each batch's recipients into.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { senderHasPlaceholder } from '../../message/channel.js';
import { MOJIBAKE_HINT, mojibakeReason, repairMojibake } from '../../message/mojibake.js';
import { readTextFile } from '../../message/text-file.js';
import { buildRequest, parseKeyValue, parseKeyValues, type MessageDraft } from '../../message/request.js';
import type { Campaign } from '../campaign.js';
import { asciiJson } from '../input/columns.js';
import { FLAG } from '../flag-names.js';
import { gsmSafe } from '../../lookalikes/gsm-safe.js';

/** A valid number, so the request checks pass without recipients; never sent. */
const PLACEHOLDER_NUMBER = '+447911123456';

/**
 * The request without recipients, validated as `send` validates it (validity made absolute): the
 * campaign's message, with the account, channel and sender the settings resolved.
 */
export async function buildMessage(ctx: Pick<Context, 'cwd' | 'now' | 'stdin'>, campaign: Pick<Campaign, 'message' | 'input' | 'where'>): Promise<Record<string, unknown>> {
  const m = campaign.message;
  const settings = campaign.where.settings;
  let text = m.text;
  let change: GsmSafeChange | undefined;
  if (m.textFile !== undefined) text = await readTextFile(ctx, m.textFile.path, { flag: FLAG.textFile, encoding: m.textFile.encoding, encodingFlag: FLAG.textEncoding });
  // A text copied out of a mangled export (message/mojibake.ts): refused as the rows' cells are.
  const repaired = text !== undefined ? repairMojibake(text) : undefined;
  if (text !== undefined && repaired !== undefined) {
    if (!campaign.input.rows.fixMojibake) {
      throw new UsageError(`${m.textFile !== undefined ? `${FLAG.textFile} ${m.textFile.path}` : FLAG.text}: ${mojibakeReason(text, repaired)}; nothing was sent`, { hint: MOJIBAKE_HINT });
    }
    text = repaired;
  }
  // --gsm-safe: the look-alikes replaced before anything counts the text; the journal keeps the
  // text as sent, so a resume sends it so.
  if (text !== undefined && m.gsmSafe) {
    const safe = gsmSafe(text);
    if (safe.replaced > 0) {
      change = { before: text, after: safe.text, replaced: safe.replaced };
      text = safe.text;
    }
  }
  const perRowText = m.textColumn !== undefined;
  const perRowFrom = m.fromColumn !== undefined;
  if (text === undefined && m.template === undefined && !perRowText) {
    throw new UsageError(`no message: give ${FLAG.text}, ${FLAG.textFile} or ${FLAG.template}`, { hint: `For example ${FLAG.text} "Your order is ready" or ${FLAG.template} order_ready (with the CSV columns as variables).` });
  }
  const draft: MessageDraft = {
    accountReference: settings.account.value ?? (campaign.where.sandbox ? 'SANDBOX' : undefined),
    name: m.name,
    characterSet: m.characterSet,
    channel: settings.channel.value,
    // Stand-ins for what each row brings, so the rest is checked as `send` checks it; never sent.
    from: perRowFrom ? '0' : settings.from.value,
    validity: m.validity,
    messageType: m.messageType,
    text: perRowText ? '.' : text,
    templateId: m.template,
    recipients: [{ msisdn: PLACEHOLDER_NUMBER }],
    metaData: parseKeyValues(FLAG.meta, m.meta),
  };
  // A text read from a file is that file's fault when it is empty: name the flag and the file.
  const built = buildRequest(draft, ctx.now(), m.textFile !== undefined ? { text: `${FLAG.textFile} ${m.textFile.path}` } : {});
  if (!built.ok) {
    const problems = built.problems.filter((p) => !p.field.startsWith('--to'));
    const lines = problems.map((p) => `  ${p.field}: ${p.message}`);
    const hints = problems.flatMap((p) => (p.hint !== undefined ? [p.hint] : []));
    // `--from '{{sender}}'`: a sender per row is a column's.
    if (problems.some((p) => p.field === FLAG.from) && senderHasPlaceholder(settings.from.value ?? '')) hints.push(`Take each row's sender from a column with ${FLAG.fromColumn} NAME.`);
    throw new UsageError(`the message is not valid; nothing was sent:\n${lines.join('\n')}`, hints.length > 0 ? { hint: hints.join('\n      ') } : {});
  }
  const { recipients: _r, ...message } = built.request;
  if (perRowFrom) delete (message as { from?: string }).from;
  if (perRowText) message.body = {};
  if (change !== undefined) changes.set(message, change);
  return message;
}

/** What --gsm-safe changed in a message's text: as written, as sent, and how many characters. */
export interface GsmSafeChange {
  readonly before: string;
  readonly after: string;
  readonly replaced: number;
}

// Beside the message, not in it: the message is the request the API gets.
const changes = new WeakMap<object, GsmSafeChange>();

/** What --gsm-safe changed in the text of a message buildMessage() made; undefined: nothing (or a resume's message, replaced when its run started). */
export function gsmSafeChangeOf(message: Record<string, unknown>): GsmSafeChange | undefined {
  return changes.get(message);
}

/** The request as a string frame around the recipients, in the API's field order (docs/api.md: "Request fields"). */
export function requestFrame(message: Record<string, unknown>): { prefix: string; suffix: string } {
  const { metaData, addressBook: _addressBook, recipients: _recipients, ...rest } = message;
  // ASCII only, like the recipients (columns.ts, asciiJson): the same JSON value.
  const head = asciiJson(JSON.stringify(rest));
  return {
    prefix: `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"recipients":[`,
    suffix: `]${metaData !== undefined ? `,"metaData":${asciiJson(JSON.stringify(metaData))}` : ''}}`,
  };
}

/** The text of the message, when it has one (not a template). */
export function messageText(message: Record<string, unknown>): string | undefined {
  const text = (message.body as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : undefined;
}

/** `--meta` values as a map, as the journal keeps them. */
export function metaMap(values: readonly string[]): Record<string, string> {
  return Object.fromEntries(values.map((m) => {
    const kv = parseKeyValue(m);
    return [kv?.key ?? m, kv?.value ?? ''];
  }));
}

/**
 * Whether msgr fills in the text itself (`--text`, `--text-file`, `--text-column`): then the
 * provider needs no column, and a run's requests carry no `recipients[].variables` unless
 * --var-columns names them (docs/personalised.md: "What goes to the provider"). A template, or a
 * text sent as written for the API to fill in (--no-render), is the provider's to render: every
 * other column goes as variables unless --var-columns narrows them.
 */
export function msgrRenders(message: Record<string, unknown>, personal: { readonly render: boolean; readonly textColumn: string | null } | undefined): boolean {
  if (personal?.textColumn !== undefined && personal.textColumn !== null) return true;
  const body = message.body as { text?: unknown } | undefined;
  return typeof body?.text === 'string' && personal?.render !== false;
}
