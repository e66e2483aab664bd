// Campaign keys (`--once KEY` on send and send-bulk; docs/reruns.md: "Campaign keys"). A key names
// one message or one campaign for one target account: the first command with it sends, a later
// one with the same key continues what is unfinished or says it is done, whatever file path,
// flags or host it came from, as long as it reaches the same state folder. A key's state lives
// where every command with it looks: send-bulk's run in `runs/once-<key>-<id>/` (beside the runs
// of files, so `msgr runs` lists it), send's record in `once/<key>-<id>.json`. The key also names
// the requests' Idempotency-Keys, so two hosts with a key each their own state folder still send
// the same keys, and the API can tell a request it already has.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runsRoot } from '../files/state-dir.js';
import { baseUrlOf, messagesEndpoint } from '../http/endpoint.js';

/** 16 hex characters: the key within its target account (API and account), domain-separated. */
function keyId(place: Place, key: string): string {
  const api = place.sandbox ? 'sandbox' : (place.baseUrl ?? '');
  return createHash('sha256').update(`msgr campaign key v1\0${api}\0${place.account ?? ''}\0${key}`).digest('hex').slice(0, 16);
}

/** What is safe in a file name and a header value: letters, digits, `.`, `_`, `-`. */
function slug(key: string, max: number): string {
  return key.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, max);
}

/** The key's name in folders, files and Idempotency-Keys: readable, and unique per target account. */
export function keyName(place: Place, key: string): string {
  return `${slug(key, 40)}-${keyId(place, key)}`;
}

/** The journal of send-bulk's run under the key (runs/once-<name>/journal.jsonl). */
export function keyedJournal(state: string, place: Place, key: string): string {
  return join(runsRoot(state, place.sandbox), `once-${keyName(place, key)}`, 'journal.jsonl');
}

/** send's record of its one message under the key. */
export function keyedSendRecord(state: string, place: Place, key: string): string {
  return join(place.sandbox ? join(state, 'sandbox') : state, 'once', `${keyName(place, key)}.json`);
}

/**
 * The name a keyed run's Idempotency-Keys are made from (`msgr-<name>-<batch>`): the key's own,
 * so the same key and batch give the same Idempotency-Key on any host; a run that starts over
 * under the key (--restart) adds its run id, as its batches are other requests.
 */
export function keyedIdempotency(place: Place, key: string, restartOf?: string): string {
  return `once-${keyName(place, key)}${restartOf !== undefined ? `-${restartOf}` : ''}`;
}

/** Which command used the key already in this state folder, if another one did. */
export function keyUsedBy(state: string, place: Place, key: string, command: 'send' | 'send-bulk'): string | undefined {
  if (command === 'send' && existsSync(keyedJournal(state, place, key))) return `msgr send-bulk (its run: ${keyedJournal(state, place, key)})`;
  if (command === 'send-bulk' && existsSync(keyedSendRecord(state, place, key))) return `msgr send (its record: ${keyedSendRecord(state, place, key)})`;
  return undefined;
}

/**
 * A key no command used yet beside `key` (`key-2`, `key-3`, …), for a hint to offer: one that
 * is taken would be refused in turn.
 */
export function freeKey(state: string, place: Place, key: string): string {
  for (let n = 2; ; n++) {
    const candidate = `${key}-${n}`;
    if (!existsSync(keyedJournal(state, place, candidate)) && !existsSync(keyedSendRecord(state, place, candidate))) return candidate;
  }
}

/** The sandbox listens on a new port every run: its journals record this instead. */
export const SANDBOX_URL = 'sandbox';

/**
 * Where a run sends as far as it is known without the key (a dry run needs none): the API (its
 * base URL, or the sandbox) and the account. What makes two runs "the same target" for a run of a
 * file again (docs/reruns.md: "Running a file again") and a campaign key's scope (--once).
 */
export interface Place {
  readonly sandbox: boolean;
  /** As journaled (bulk/this-run/where.ts journaledTarget); undefined when no base URL is known yet. */
  readonly baseUrl: string | undefined;
  readonly account: string | null;
}

export function placeOf(baseUrl: string | undefined, sandbox: boolean, account: string | undefined): Place {
  let base = baseUrl;
  if (sandbox) base = SANDBOX_URL;
  else if (baseUrl !== undefined) {
    try {
      base = baseUrlOf(messagesEndpoint(baseUrl));
    } catch {
      // Refused as the run goes on (resolveTarget); compared as written until then.
    }
  }
  return { sandbox, baseUrl: base, account: account ?? null };
}
