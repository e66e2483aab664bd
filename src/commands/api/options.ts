// argv → options for `msgr api`: the method, the path, the body from --input or --field, extra
// headers. Pure functions, so every rule can be tested without a network.
import type { Dispatcher } from 'undici';
import { UsageError } from '../../errors.js';
import { parseConnectionOptions, type ConnectionOptions } from '../shared/connection.js';
import { list, str, type Raw } from '../shared/option-values.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export interface ApiOptions extends ConnectionOptions {
  readonly method: Dispatcher.HttpMethod | undefined;
  readonly path: string;
  readonly input: string | undefined;
  readonly fields: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
}

export function parseApiOptions(first: string, second: string | undefined, raw: Raw): ApiOptions {
  let method: Dispatcher.HttpMethod | undefined;
  let path = first;
  if (second !== undefined) {
    const upper = first.toUpperCase();
    if (!(METHODS as readonly string[]).includes(upper)) {
      throw new UsageError(`"${first}" is not an HTTP method`, { hint: `Use one of ${METHODS.join(', ')}, or give only the path.` });
    }
    method = upper;
    path = second;
  } else if ((METHODS as readonly string[]).includes(first.toUpperCase()) && !first.startsWith('/')) {
    throw new UsageError(`no path after the method ${first.toUpperCase()}`, { hint: `For example: msgr api ${first.toUpperCase()} /v2/messages` });
  }
  return {
    ...parseConnectionOptions(raw),
    method,
    path,
    input: str(raw, 'input'),
    fields: list(raw, 'field') ?? [],
    headers: parseHeaders(list(raw, 'header') ?? []),
  };
}

// Headers msgr sets itself from the request, or that would change where or how it is sent.
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'keep-alive', 'te', 'trailer', 'proxy-authorization']);

export function parseHeaders(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const i = v.indexOf(':');
    const name = (i > 0 ? v.slice(0, i) : '').trim();
    if (i <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header: "${v}" is not "Name: value"`, { hint: "For example -H 'Idempotency-Key: order-1234'" });
    }
    const lower = name.toLowerCase();
    if (lower === 'x-api-key' || lower === 'authorization') {
      // The value is not repeated: it is likely a key, and this line may end up in a log.
      throw new UsageError(`--header: ${name} is never taken on the command line (shell history, ps)`, {
        hint: 'The key comes from the profile, MSGR_API_KEY, --api-key-file or --api-key-stdin.',
      });
    }
    if (RESERVED.has(lower)) throw new UsageError(`--header: ${name} is set by msgr itself`);
    const value = v.slice(i + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new UsageError(`--header: the value of ${name} has a line break or NUL`);
    out[lower] = value;
  }
  return out;
}

/** A field's key path: `a.b` nests, `a[]` appends to an array. */
function keyPath(key: string, field: string): Array<string | null> {
  const parts = key.split('.');
  const out: Array<string | null> = [];
  for (const part of parts) {
    const append = part.endsWith('[]');
    const name = append ? part.slice(0, -2) : part;
    if (name === '') throw new UsageError(`--field: "${field}" has an empty name in its key`, { hint: 'For example -f body.text=Hi or -f tags[]=a' });
    out.push(name);
    if (append) out.push(null);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Sets one field in a JSON object: `key=text` is a string, `key:=json` any JSON value. */
export function setField(target: Record<string, unknown>, field: string, substitute: (s: string) => string = (s) => s): void {
  const eq = field.indexOf('=');
  if (eq <= 0) throw new UsageError(`--field: "${field}" is not key=value or key:=json`, { hint: 'For example -f channel=RCS or -f \'recipients:=[{"msisdn": "+447911123456"}]\'' });
  const rawKey = field.slice(0, eq);
  const typed = rawKey.endsWith(':');
  const key = typed ? rawKey.slice(0, -1) : rawKey;
  const text = field.slice(eq + 1);
  let value: unknown = substitute(text);
  if (typed) {
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      throw new UsageError(`--field: the value of ${key} is not JSON (${(err as Error).message})`, { hint: 'key:=JSON takes JSON (true, 42, [..], {..}); key=text takes text.' });
    }
  }
  const path = keyPath(key, field);
  let node: Record<string, unknown> | unknown[] = target;
  for (const [i, step] of path.entries()) {
    const last = i === path.length - 1;
    const nextIsArray = path[i + 1] === null;
    if (step === null) {
      const arr = node as unknown[];
      if (last) arr.push(value);
      else {
        const child = {};
        arr.push(child);
        node = child;
      }
      continue;
    }
    if (Array.isArray(node)) throw new UsageError(`--field: "${field}" goes into an array without []`);
    if (last) {
      node[step] = value;
      continue;
    }
    const existing = node[step];
    if (nextIsArray) {
      if (existing === undefined) node[step] = [];
      else if (!Array.isArray(existing)) throw new UsageError(`--field: ${path.slice(0, i + 1).join('.')} is not an array, so ${key} cannot append to it`);
      node = node[step] as unknown[];
    } else {
      if (existing === undefined) node[step] = {};
      else if (!isObject(existing)) throw new UsageError(`--field: ${path.slice(0, i + 1).join('.')} already has a value that is not an object`);
      node = node[step] as Record<string, unknown>;
    }
  }
}
