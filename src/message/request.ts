// The message request (docs/api.md: "Request fields"), built from options and validated before any
// byte is sent. Field names and nesting are exactly the API's; unset fields are omitted, never
// null (docs/contract.md: "Requests").
import type { CountryCode } from 'libphonenumber-js/max';
import { UsageError } from '../errors.js';
import { checkSender, parseChannel, type Channel } from './channel.js';
import { isBlank } from './invisible.js';
import { phoneText } from './text-file.js';
import { normaliseNumberFast as normaliseNumber } from './fast-numbers.js';
import { parseValidity } from './request-fields/validity.js';

export type KeyValues = Record<string, string | number | boolean>;

export interface Recipient {
  msisdn: string;
  variables?: KeyValues;
  metaData?: KeyValues;
}

export interface MessageRequest {
  accountReference: string;
  name?: string;
  characterSet?: string;
  channel: Channel;
  from: string;
  validity?: string;
  messageType?: string;
  body: { text?: string; templateId?: string };
  recipients?: Recipient[];
  addressBook?: { contacts: Array<{ id: string }> };
  metaData?: KeyValues;
}

/** Everything a request can be built from, after flags, input file and settings are merged. */
export interface MessageDraft {
  accountReference?: string | undefined;
  name?: string | undefined;
  characterSet?: string | undefined;
  channel?: string | undefined;
  from?: string | undefined;
  validity?: string | undefined;
  messageType?: string | undefined;
  text?: string | undefined;
  templateId?: string | undefined;
  /** Raw numbers from --to or the input file, each with per-recipient fields. */
  recipients?: Array<{ msisdn: string; variables?: KeyValues | undefined; metaData?: KeyValues | undefined }> | undefined;
  contacts?: string[] | undefined;
  metaData?: KeyValues | undefined;
  defaultCountry?: CountryCode | undefined;
  /** --allow-unlisted-numbers: possible numbers outside the known numbering plan are sent. */
  allowUnlisted?: boolean | undefined;
}

/** Which flag to name in a message about each field. */
export type FieldFlags = Partial<Record<'account' | 'from' | 'channel' | 'validity' | 'text' | 'template' | 'to' | 'contact', string>>;

const DEFAULT_FLAGS: Required<FieldFlags> = {
  account: '--account',
  from: '--from',
  channel: '--channel',
  validity: '--validity',
  text: '--text',
  template: '--template',
  to: '--to',
  contact: '--contact',
};

export interface Problem {
  /** The flag (or input field) at fault. */
  readonly field: string;
  readonly message: string;
  readonly hint?: string;
}

export type BuildResult =
  | { ok: true; request: MessageRequest }
  | { ok: false; problems: Problem[] };

/** Parses `key=value`; the first `=` splits, the value may contain more. */
export function parseKeyValue(input: string): { key: string; value: string } | undefined {
  const i = input.indexOf('=');
  if (i <= 0) return undefined;
  return { key: input.slice(0, i).trim(), value: input.slice(i + 1) };
}

/** Repeated `key=value` flags (`--var`, `--meta`) as a map; a malformed one names its flag. */
export function parseKeyValues(flag: string, values: readonly string[] | undefined): KeyValues | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const out: KeyValues = {};
  for (const v of values) {
    const kv = parseKeyValue(v);
    if (kv === undefined || kv.key === '') throw new UsageError(`${flag}: "${v}" is not key=value`, { hint: `For example ${flag} campaign=spring` });
    out[kv.key] = kv.value;
  }
  return out;
}

/** Validates a draft into a request. Collects every problem, so one run shows them all. */
export function buildRequest(draft: MessageDraft, now: Date, flags: FieldFlags = {}): BuildResult {
  const f = { ...DEFAULT_FLAGS, ...flags };
  const problems: Problem[] = [];

  const account = draft.accountReference?.trim();
  if (account === undefined || account === '') {
    problems.push({ field: f.account, message: 'accountReference is required', hint: `Give ${f.account}, set MSGR_ACCOUNT_REFERENCE, or save it in a profile.` });
  } else if (!/^[A-Za-z]/.test(account) || /[\s\u0000-\u001f]/.test(account)) {
    problems.push({ field: f.account, message: `"${account}" is not an account reference (letters first, no spaces)` });
  }

  let channel: Channel = 'SMS';
  if (draft.channel !== undefined) {
    const parsed = parseChannel(draft.channel);
    if (parsed.ok) channel = parsed.value;
    else problems.push({ field: f.channel, message: parsed.reason });
  }

  const from = draft.from;
  if (from === undefined || from === '') {
    problems.push({ field: f.from, message: 'a sender (from) is required', hint: `Give ${f.from}, or save a default sender in a profile.` });
  } else {
    const senderProblem = checkSender(from, channel);
    if (senderProblem !== undefined) problems.push({ field: f.from, message: `sender ${senderProblem}` });
  }

  const hasText = draft.text !== undefined;
  const hasTemplate = draft.templateId !== undefined;
  if (hasText && hasTemplate) {
    problems.push({ field: `${f.text}/${f.template}`, message: 'give either text or a template, not both' });
  } else if (!hasText && !hasTemplate) {
    problems.push({ field: `${f.text}/${f.template}`, message: 'no message: give --text, --text-file, --template, or pipe the text on stdin' });
  } else if (hasText && isBlank(draft.text ?? '')) {
    problems.push({ field: f.text, message: 'the message text is empty' });
  } else if (hasTemplate && draft.templateId?.trim() === '') {
    problems.push({ field: f.template, message: 'the template id is empty' });
  }

  let validity: string | undefined;
  if (draft.validity !== undefined) {
    const parsed = parseValidity(draft.validity, now);
    if (parsed.ok) validity = parsed.value;
    else problems.push({ field: f.validity, message: parsed.reason });
  }

  const recipients: Recipient[] = [];
  for (const [i, r] of (draft.recipients ?? []).entries()) {
    const result = normaliseNumber(r.msisdn, draft.defaultCountry, { allowUnlisted: draft.allowUnlisted });
    if (!result.ok) {
      problems.push({
        field: draft.recipients !== undefined && draft.recipients.length > 1 ? `${f.to} (recipient ${i + 1})` : f.to,
        message: result.reason,
        ...(result.hint !== undefined ? { hint: result.hint } : {}),
      });
      continue;
    }
    recipients.push({
      msisdn: result.e164,
      ...(r.variables !== undefined && Object.keys(r.variables).length > 0 ? { variables: r.variables } : {}),
      ...(r.metaData !== undefined && Object.keys(r.metaData).length > 0 ? { metaData: r.metaData } : {}),
    });
  }
  const contacts = (draft.contacts ?? []).map((c) => c.trim());
  for (const c of contacts) {
    if (c === '') problems.push({ field: f.contact, message: 'a contact id is empty' });
  }
  if ((draft.recipients ?? []).length === 0 && contacts.length === 0) {
    problems.push({ field: `${f.to}/${f.contact}`, message: 'no recipients: give --to or --contact', hint: 'For example --to +447911123456' });
  }

  if (problems.length > 0 || account === undefined || from === undefined) return { ok: false, problems };

  // The API's field order, so dry runs read like the table in docs/api.md.
  const request: MessageRequest = {
    accountReference: account,
    ...(draft.name !== undefined ? { name: draft.name } : {}),
    ...(draft.characterSet !== undefined ? { characterSet: draft.characterSet } : {}),
    channel,
    from,
    ...(validity !== undefined ? { validity } : {}),
    ...(draft.messageType !== undefined ? { messageType: draft.messageType } : {}),
    body: hasText ? { text: phoneText(draft.text ?? '') } : { templateId: draft.templateId ?? '' },
    ...(recipients.length > 0 ? { recipients } : {}),
    ...(contacts.length > 0 ? { addressBook: { contacts: contacts.map((id) => ({ id })) } } : {}),
    ...(draft.metaData !== undefined && Object.keys(draft.metaData).length > 0 ? { metaData: draft.metaData } : {}),
  };
  return { ok: true, request };
}
