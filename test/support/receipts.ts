// A run whose messages get receipts (docs/events.md: "Delivery in runs"): a CSV of numbers, an
// environment of its own (state folder, the listener's token, the scriptable server as the API),
// and the server answering each request with a message id `m-<number>` for each recipient.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempDir } from './cli.js';
import { acceptedWithIds, recipientsOf, type TestServer } from './test-server.js';

export const LISTEN_TOKEN = 'receipts-token-0123456789';

/** `count` UK mobile numbers from +4479112<first>, in c.csv; the API's account `account`. */
export function runForReceipts(server: TestServer, account: string, count: number, first: number): { dir: string; env: Record<string, string>; file: string; n: string[] } {
  const dir = tempDir();
  const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_LISTEN_TOKEN: LISTEN_TOKEN, MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: account });
  const n = Array.from({ length: count }, (_, i) => `+4479112${String(first + i).padStart(5, '0')}`);
  const file = join(dir, 'c.csv');
  writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
  server.answer = (req) => acceptedWithIds(recipientsOf(req));
  return { dir, env, file, n };
}
