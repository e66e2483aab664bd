// Strict validation of a message request for the sandbox (docs/api.md: "Request fields").
// It runs once per request over up to 10,000 recipients and is on the path of the
// 1,000,000-recipient benchmark, so it is plain loops over the parsed JSON: no schema library,
// and a field path string is only built when there is an error to report.

export interface FieldError {
  /** Path of the offending field in the request: `recipients[3].msisdn`, `body`, `$` for the root. */
  readonly field: string;
  readonly message: string;
}

export interface ValidationResult {
  /** The first MAX_REPORTED_ERRORS errors, in document order. */
  readonly errors: FieldError[];
  /** All errors found, reported or not. */
  readonly errorCount: number;
}

/** Recipients plus address-book contacts accepted in one request. */
export const MAX_RECIPIENTS = 10_000;
/** A request with 10,000 bad numbers gets the first 100 errors and the total count. */
export const MAX_REPORTED_ERRORS = 100;

/** E.164 shape: a plus, no leading zero, 7 to 15 digits in all. */
export const MSISDN_PATTERN = /^\+[1-9]\d{6,14}$/;
/** The wire format msgr sends: UTC with milliseconds and an explicit +00:00 (docs/contract.md: "Requests"). */
export const VALIDITY_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
/** Spec: "letters followed by characters". Read as: starts with a letter, no white space. */
const ACCOUNT_PATTERN = /^[A-Za-z]\S*$/;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export type Channel = 'SMS' | 'RCS';

/** The shape a request has once `validateMessageRequest` returned no errors. */
export interface ValidMessageRequest {
  accountReference: string;
  channel: Channel;
  from: string;
  body: { text?: string; templateId?: string };
  recipients?: Array<{ msisdn: string; variables?: Record<string, string | number | boolean>; metaData?: Record<string, string | number | boolean> }>;
  addressBook?: { contacts: Array<{ id: string }> };
  name?: string;
  characterSet?: string;
  messageType?: string;
  validity?: string;
  metaData?: Record<string, string | number | boolean>;
}

class Collector {
  readonly errors: FieldError[] = [];
  count = 0;
  add(field: string, message: string): void {
    this.count += 1;
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push({ field, message });
  }
}

/** `parent.key`, or `parent["odd key"]` when the key is not an identifier. */
export function fieldPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** A present value must be a non-empty string; `null` is refused (unset fields are omitted). */
function checkString(c: Collector, value: unknown, field: string): value is string {
  if (typeof value !== 'string') {
    c.add(field, value === null ? 'must not be null: omit the field instead' : `must be a string, not ${typeName(value)}`);
    return false;
  }
  if (value.length === 0) {
    c.add(field, 'must not be empty');
    return false;
  }
  return true;
}

/**
 * `variables` and `metaData`: docs/api.md says "key/value object", so a flat object whose values
 * are scalars. Strings, numbers and booleans are accepted; null, objects and arrays are not.
 */
function checkFlatObject(c: Collector, value: unknown, field: string): void {
  if (!isObject(value)) {
    c.add(field, value === null ? 'must not be null: omit the field instead' : `must be an object of key/value pairs, not ${typeName(value)}`);
    return;
  }
  for (const key in value) {
    const v = value[key];
    if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') {
      if (key.length === 0) c.add(fieldPath(field, key), 'keys must not be empty');
      continue;
    }
    c.add(fieldPath(field, key), v === null ? 'must not be null' : `values must be strings, numbers or booleans, not ${typeName(v)}`);
  }
}

function checkValidity(c: Collector, value: unknown, nowMs: number): void {
  if (!checkString(c, value, 'validity')) return;
  if (!VALIDITY_PATTERN.test(value)) {
    c.add('validity', 'must be a UTC time with milliseconds, like 2030-01-31T09:00:00.000+00:00');
    return;
  }
  const ms = Date.parse(value);
  // Date.parse rolls 2030-02-30 over to March: a round trip catches dates that do not exist.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 23) !== value.slice(0, 23)) {
    c.add('validity', 'is not a real date and time');
    return;
  }
  if (ms <= nowMs) c.add('validity', 'is in the past');
}

function checkBody(c: Collector, value: unknown): void {
  if (!isObject(value)) {
    c.add('body', value === null ? 'must not be null' : `must be an object with text or templateId, not ${typeName(value)}`);
    return;
  }
  let given = 0;
  for (const key in value) {
    const v = value[key];
    if (key === 'text' || key === 'templateId') {
      given += 1;
      checkString(c, v, `body.${key}`);
    } else {
      c.add(fieldPath('body', key), 'unknown field');
    }
  }
  if (given === 0) c.add('body', 'needs one of text or templateId');
  else if (given === 2) c.add('body', 'takes text or templateId, not both');
}

function checkRecipients(c: Collector, list: unknown[]): void {
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    if (!isObject(r)) {
      c.add(`recipients[${i}]`, `must be an object with msisdn, not ${typeName(r)}`);
      continue;
    }
    let hasMsisdn = false;
    for (const key in r) {
      const v = r[key];
      if (key === 'msisdn') {
        hasMsisdn = true;
        if (typeof v === 'string' && MSISDN_PATTERN.test(v)) continue;
        if (typeof v !== 'string') c.add(`recipients[${i}].msisdn`, v === null ? 'must not be null' : `must be a string, not ${typeName(v)}`);
        else c.add(`recipients[${i}].msisdn`, 'must be an international number: a plus and 7 to 15 digits, no leading zero (+447911123456)');
      } else if (key === 'variables' || key === 'metaData') {
        checkFlatObject(c, v, `recipients[${i}].${key}`);
      } else {
        c.add(fieldPath(`recipients[${i}]`, key), 'unknown field');
      }
    }
    if (!hasMsisdn) c.add(`recipients[${i}].msisdn`, 'is required');
  }
}

function checkContacts(c: Collector, list: unknown[]): void {
  for (let i = 0; i < list.length; i++) {
    const r = list[i];
    const field = `addressBook.contacts[${i}]`;
    if (!isObject(r)) {
      c.add(field, `must be an object with id, not ${typeName(r)}`);
      continue;
    }
    let hasId = false;
    for (const key in r) {
      if (key === 'id') {
        hasId = true;
        checkString(c, r[key], `${field}.id`);
      } else {
        c.add(fieldPath(field, key), 'unknown field');
      }
    }
    if (!hasId) c.add(`${field}.id`, 'is required');
  }
}

/**
 * Every rule the API (docs/api.md) allows a server to enforce, plus the sandbox's documented choices
 * (docs/sandbox.md). `nowMs` is the server clock, for `validity` in the past.
 */
export function validateMessageRequest(request: unknown, nowMs: number): ValidationResult {
  const c = new Collector();
  if (!isObject(request)) {
    c.add('$', `the request body must be a JSON object, not ${typeName(request)}`);
    return { errors: c.errors, errorCount: c.count };
  }
  let recipients: unknown[] | undefined;
  let contacts: unknown[] | undefined;
  for (const key in request) {
    const v = request[key];
    switch (key) {
      case 'accountReference':
        if (checkString(c, v, key) && !ACCOUNT_PATTERN.test(v)) c.add(key, 'must start with a letter and contain no spaces');
        break;
      case 'name':
      case 'characterSet':
      case 'messageType':
      case 'from':
        checkString(c, v, key);
        break;
      case 'channel':
        if (!checkString(c, v, key)) break;
        if (v === 'SMS' || v === 'RCS') break;
        if (/^(whatsapp|email|voice)$/i.test(v)) c.add(key, `${v} is not available yet: use SMS or RCS`);
        else c.add(key, `must be SMS or RCS, in upper case (got ${JSON.stringify(v.slice(0, 40))})`);
        break;
      case 'validity':
        checkValidity(c, v, nowMs);
        break;
      case 'body':
        checkBody(c, v);
        break;
      case 'recipients':
        if (Array.isArray(v)) recipients = v;
        else c.add(key, v === null ? 'must not be null: omit the field instead' : `must be an array, not ${typeName(v)}`);
        break;
      case 'addressBook':
        if (!isObject(v)) {
          c.add(key, v === null ? 'must not be null: omit the field instead' : `must be an object with contacts, not ${typeName(v)}`);
          break;
        }
        for (const k in v) {
          if (k !== 'contacts') c.add(fieldPath(key, k), 'unknown field');
        }
        if (!('contacts' in v)) c.add('addressBook.contacts', 'is required');
        else if (Array.isArray(v.contacts)) contacts = v.contacts;
        else c.add('addressBook.contacts', v.contacts === null ? 'must not be null' : `must be an array, not ${typeName(v.contacts)}`);
        break;
      case 'metaData':
        checkFlatObject(c, v, key);
        break;
      default:
        c.add(fieldPath('', key), 'unknown field');
    }
  }
  for (const key of ['accountReference', 'channel', 'from', 'body'] as const) {
    if (!(key in request)) c.add(key, 'is required');
  }
  const total = (recipients?.length ?? 0) + (contacts?.length ?? 0);
  if (total === 0) {
    // Only when both are absent or empty: a recipients field of the wrong type already has its error.
    if (!('recipients' in request && recipients === undefined) && !('addressBook' in request && contacts === undefined)) {
      c.add('recipients', 'at least one recipient or addressBook contact is required');
    }
  } else if (total > MAX_RECIPIENTS) {
    // Refused before looking at each entry: a 100,000-entry request costs no more than a small one.
    c.add(recipients !== undefined && recipients.length > 0 ? 'recipients' : 'addressBook.contacts', `at most ${MAX_RECIPIENTS} recipients and contacts per request (got ${total})`);
  } else {
    if (recipients !== undefined) checkRecipients(c, recipients);
    if (contacts !== undefined) checkContacts(c, contacts);
  }
  return { errors: c.errors, errorCount: c.count };
}
