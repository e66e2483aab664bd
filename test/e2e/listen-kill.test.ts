// kill -9 of msgr listen at random moments while the sandbox posts its events, with retries:
// every event the sandbox saw acknowledged is in the file, and none is there twice
// (docs/events.md: "Nothing acknowledged is lost"). The issue asks for 20,000 events; the default
// run posts 4,000 (about 10 s of the suite on the 2-core machine, and the same kills):
//   MSGR_TEST_KILL_EVENTS=20000 node --test build/test/e2e/listen-kill.test.js
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cleanEnv, tempDir } from '../support/cli.js';
import { freePort, LISTENING, SANDBOX_URL, startMsgr, waitFor, type Daemon } from '../support/daemon.js';

const EVENTS = Number(process.env.MSGR_TEST_KILL_EVENTS ?? 4_000);
const KILLS = 5;
const TOKEN = 'e2e-kill-token-0123456789';

function lineCount(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

test(`kill -9 of the listener while the sandbox posts ${EVENTS} events: every acknowledged event is in the file, none twice`, { timeout: 300_000 }, async () => {
  const dir = tempDir();
  const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
  const out = join(dir, 'events.jsonl');
  const acked = join(dir, 'acked.jsonl');
  const port = String(await freePort());
  const start = (): Promise<Daemon> => startMsgr(['listen', '--port', port, '--out', out], env, LISTENING);
  let listen = await start();
  // Receipts spread over about EVENTS / 2,000 s: the 2,000 events a second.
  const sbx = await startMsgr(['sandbox', '--port', '0', '-q', '--webhook-url', listen.ready, '--event-delay', String(Math.round(EVENTS / 2)), '--webhook-record', acked, '--webhook-retry-for', '600'], env, SANDBOX_URL);
  let kills = 0;
  try {
    for (let sent = 0; sent < EVENTS; sent += 500) {
      const recipients = Array.from({ length: Math.min(500, EVENTS - sent) }, (_, i) => ({ msisdn: `+4477009${String(sent + i).padStart(5, '0')}` }));
      const r = await fetch(`${sbx.ready}/v2/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify({ accountReference: 'EX1', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients }) });
      assert.equal(r.status, 202);
    }
    while (kills < KILLS && lineCount(acked) < EVENTS) {
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 500));
      listen.child.kill('SIGKILL');
      await listen.exit;
      kills++;
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 250));
      listen = await start();
    }
    await waitFor(`${EVENTS} events acknowledged`, () => lineCount(acked) >= EVENTS, 240_000);
  } finally {
    await sbx.stop();
    await listen.stop();
  }
  assert.ok(kills >= 3, `only ${kills} kills happened before the sandbox was done: the test proves little`);
  const ids = readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse((JSON.parse(l) as { body: string }).body) as { id: string }).id);
  const unique = new Set(ids);
  assert.equal(unique.size, ids.length, `${ids.length - unique.size} events recorded twice`);
  const ackedIds = readFileSync(acked, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { id: string }).id);
  assert.equal(new Set(ackedIds).size, EVENTS);
  const missing = ackedIds.filter((id) => !unique.has(id));
  assert.deepEqual(missing, [], `${missing.length} acknowledged events are not in the file`);
  assert.equal(ids.length, EVENTS);
  assert.match(sbx.stderr(), /^$/);
});
