// What send-bulk tests send and how they read what the sandbox received: CSVs of valid numbers, a
// sandbox on a free port of 127.0.0.1 that records every accepted request, and the environment
// that points msgr at it. Shared by the in-process and the end-to-end tests.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { cleanEnv, tempDir } from './cli.js';

/** The API key the sandbox takes and the environment gives. */
export const KEY = 'test-key-1234';

export interface Recorded {
  idempotencyKey: string | null;
  request: { recipients: Array<{ msisdn: string; variables?: Record<string, string>; metaData?: Record<string, string> }>; [k: string]: unknown };
}

/** Every request the sandbox recorded in `path`, in order. */
export function readRecord(path: string): Recorded[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Recorded);
}

/** Every recipient of every recorded request, in order. */
export function recipients(path: string): Array<{ msisdn: string; variables?: Record<string, string>; metaData?: Record<string, string> }> {
  return readRecord(path).flatMap((r) => r.request.recipients);
}

/** A sandbox on a free port, recording what it accepts. */
export async function sandbox(options: Partial<SandboxOptions> = {}): Promise<{ server: RunningSandbox; record: string }> {
  const record = join(tempDir('msgr-bulk-rec-'), 'record.jsonl');
  const server = await startSandbox({ port: 0, record, apiKey: KEY, ...options });
  return { server, record };
}

/** msgr's environment for a base URL: the key, the account, a state folder of its own. */
export function env(baseUrl: string, extra: Record<string, string | undefined> = {}, configDir = tempDir()): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

/** A CSV file of these lines. */
export function csv(rows: string[], name = 'in.csv'): string {
  const path = join(tempDir('msgr-bulk-csv-'), name);
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
}

/** n distinct valid UK mobile numbers, counted from `start`. */
export function mobileNumbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

/** A list of numbers alone, written at `path` (today's export saved over yesterday's; 5 numbers make 77 bytes); returns `path`. */
export function writeNumbersCsv(path: string, list: readonly string[]): string {
  writeFileSync(path, `msisdn\n${list.join('\n')}\n`);
  return path;
}

/** n distinct valid UK mobile numbers alone (`msisdn` their only column), in a folder of their own. */
export function numbersOnlyCsv(n: number): { path: string; numbers: string[] } {
  const numbers = mobileNumbers(n);
  return { path: writeNumbersCsv(join(tempDir('msgr-numbers-csv-'), 'list.csv'), numbers), numbers };
}

/** n rows of distinct valid UK mobile numbers with a name column. */
export function numbersCsv(n: number, start = 0): { path: string; numbers: string[] } {
  const numbers = mobileNumbers(n, start);
  return { path: csv(['msisdn,name', ...numbers.map((m, i) => `${m},N${i}`)]), numbers };
}

/** The message every plain test sends. */
export const MSG = ['--from', 'Acme', '--text', 'Hello there'];

/** Every expected number arrived at the sandbox, and none twice. */
export function assertExactlyOnce(record: string, expected: string[]): void {
  const got = recipients(record).map((r) => r.msisdn);
  const dupes = got.filter((m, i) => got.indexOf(m) !== i);
  assert.deepEqual(dupes, [], 'a recipient arrived twice');
  assert.deepEqual([...got].sort(), [...expected].sort());
}
