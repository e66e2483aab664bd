// `msgr listen replay --forward-to` says why the app did not take an event as every request of
// msgr's says it (connection refused, timed out), never a library's words or a bare code: through the
// Context's real HTTP, to a port of 127.0.0.1 nothing listens on.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { hook } from '../../../../src/http/provider.js';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';

test('nothing listening at the app: each event reads "connection refused after 4 attempts", --json gives the same reason; exit 7', async () => {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  const dir = tempDir('msgr-replay-reason-');
  const events = join(dir, 'events.jsonl');
  writeFileSync(events, `${JSON.stringify({ v: 1, id: 'ev_t_1', receivedAt: '2030-01-01T00:00:00.000Z', key: 'id:a', method: 'POST', path: '/', headers: {}, body: '{"id":"a","status":"delivered"}' })}\n`);
  const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), NO_COLOR: '1' });
  // Each run waits out replay's backoff between its 4 attempts (3.5 s, a constant of msgr's with
  // no flag): the two read the same file and write nothing, so they run side by side.
  const [text, json] = await Promise.all([
    runInProcess(['listen', 'replay', '--events', events, '--forward-to', `http://127.0.0.1:${port}/hook`], { env, hook, timeoutMs: 60_000 }),
    runInProcess(['listen', 'replay', '--events', events, '--forward-to', `http://127.0.0.1:${port}/hook`, '--json'], { env, hook, timeoutMs: 60_000 }),
  ]);
  assert.equal(text.code, 7, text.stderr);
  assert.match(text.stdout, /→ connection refused after 4 attempts$/m);
  assert.doesNotMatch(text.stdout, /fetch failed|ECONNREFUSED/);
  assert.equal(json.code, 7, json.stderr);
  assert.equal((JSON.parse(json.stdout.trim()) as { error: string }).error, 'connection refused');
});
