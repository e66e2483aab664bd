// msgr listen in the in-process tests: a run whose messages get receipts (docs/events.md:
// "Delivery in runs"), and a listener as a service runs it, quiet.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempDir } from './cli.js';
import { freePort } from './daemon.js';
import { startInProcess, type InProcessDaemon } from './in-process.js';
import { acceptedWithIds, recipientsOf, type TestServer } from './test-server.js';

/** The token of quietListener's listener. */
const LISTEN_TOKEN = 'quiet-listener-token-0123456789';

/**
 * A run's CSV and environment: `count` UK mobile numbers from +4479112<first>, in c.csv; a state
 * folder of its own, the scriptable server as the API of account
 * `account`, answering with the message id `m-<number>` for each recipient.
 */
export function runForReceipts(server: TestServer, account: string, count: number, first: number): { dir: string; env: Record<string, string>; file: string; n: string[] } {
  const dir = tempDir();
  const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: account });
  const n = Array.from({ length: count }, (_, i) => `+4479112${String(first + i).padStart(5, '0')}`);
  const file = join(dir, 'c.csv');
  writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
  server.answer = (req) => acceptedWithIds(recipientsOf(req));
  return { dir, env, file, n };
}

/**
 * `msgr listen --optouts -q --account ACCOUNT` in-process, as a service runs it: it prints nothing
 * but warnings, so it is ready once its URL (returned) answers. The token is LISTEN_TOKEN, given
 * with --token: Commander reads an option's environment variable (MSGR_LISTEN_TOKEN) from the
 * process, not from the Context's env.
 */
export async function quietListener(env: Record<string, string>, account: string): Promise<{ listen: InProcessDaemon; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/${LISTEN_TOKEN}`;
  const ready = (): Promise<boolean> => fetch(url).then((r) => r.status === 200, () => false);
  const listen = await startInProcess(['listen', '--port', String(port), '--token', LISTEN_TOKEN, '--account', account, '--optouts', '-q'], env, ready);
  return { listen, url };
}
