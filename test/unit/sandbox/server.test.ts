// The sandbox server in-process on a free port, spoken to over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../src/sandbox/server.js';
import { UsageError } from '../../../src/errors.js';
import { tempDir } from '../../support/cli.js';

const KEY = 'sbx-test-key-0123456789';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

function message(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    accountReference: 'EX0000000',
    channel: 'SMS',
    from: 'Acme',
    body: { text: 'Hello' },
    recipients: [{ msisdn: '+447400900123' }],
    ...overrides,
  };
}

async function post(sbx: RunningSandbox, body: unknown, headers: Record<string, string> = {}, path = '/v2/messages', method = 'POST'): Promise<Answer> {
  const res = await fetch(sbx.url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, ...headers },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the test asserts on text
  }
  return { status: res.status, headers: res.headers, text, json };
}

async function withSandbox(options: SandboxOptions, fn: (sbx: RunningSandbox, logs: string[]) => Promise<void>): Promise<void> {
  const logs: string[] = [];
  const sbx = await startSandbox({ port: 0, log: (l) => logs.push(l), ...options });
  try {
    await fn(sbx, logs);
  } finally {
    await sbx.close();
  }
}

function tempFile(name: string): string {
  return join(tempDir('msgr-sbx-'), name);
}

function problemOf(a: Answer): { type: string; title: string; status: number; detail: string; errors?: Array<{ field: string; message: string }> } {
  assert.equal(a.headers.get('content-type'), 'application/problem+json');
  assert.equal(a.json.status, a.status);
  assert.equal(typeof a.json.title, 'string');
  assert.equal(typeof a.json.detail, 'string');
  return a.json as ReturnType<typeof problemOf>;
}

test('202: batch id, one entry per recipient and contact, SMS never falls back', async () => {
  await withSandbox({}, async (sbx) => {
    const a = await post(sbx, message({ recipients: [{ msisdn: '+447400900123' }, { msisdn: '+447400900124' }], addressBook: { contacts: [{ id: 'c-1' }] } }));
    assert.equal(a.status, 202);
    assert.equal(a.headers.get('content-type'), 'application/json');
    const body = a.json as { batchId: string; status: string; channel: string; sandbox: boolean; messages: Array<Record<string, unknown>>; contacts: Array<Record<string, unknown>> };
    assert.match(body.batchId, /^sbx_b_[0-9a-f]{16}$/);
    assert.equal(body.status, 'accepted');
    assert.equal(body.channel, 'SMS');
    assert.equal(body.sandbox, true);
    const token = body.batchId.slice('sbx_b_'.length);
    assert.deepEqual(body.messages, [
      { id: `sbx_m_${token}_0`, msisdn: '+447400900123', channel: 'SMS', fallback: false, status: 'accepted' },
      { id: `sbx_m_${token}_1`, msisdn: '+447400900124', channel: 'SMS', fallback: false, status: 'accepted' },
    ]);
    assert.deepEqual(body.contacts, [{ id: `sbx_m_${token}_2`, contactId: 'c-1', channel: 'SMS', fallback: false, status: 'accepted' }]);
    assert.deepEqual(sbx.stats(), { requests: 1, accepted: 1, recipients: 3 });
  });
});

test('RCS: even last digit gets RCS, odd falls back to SMS, the same on every request', async () => {
  await withSandbox({}, async (sbx) => {
    const recipients = [{ msisdn: '+447400900120' }, { msisdn: '+447400900121' }, { msisdn: '+14155550108' }, { msisdn: '+14155550109' }];
    const first = await post(sbx, message({ channel: 'RCS', recipients }));
    const second = await post(sbx, message({ channel: 'RCS', recipients }));
    for (const a of [first, second]) {
      assert.equal(a.status, 202);
      const got = (a.json.messages as Array<{ msisdn: string; channel: string; fallback: boolean }>).map((m) => [m.msisdn, m.channel, m.fallback]);
      assert.deepEqual(got, [
        ['+447400900120', 'RCS', false],
        ['+447400900121', 'SMS', true],
        ['+14155550108', 'RCS', false],
        ['+14155550109', 'SMS', true],
      ]);
    }
    assert.notEqual(first.json.batchId, second.json.batchId);
  });
});

test('401 for a missing or wrong key; the key never reaches the log', async () => {
  await withSandbox({ apiKey: KEY }, async (sbx, logs) => {
    const missing = await post(sbx, message(), { 'x-api-key': '' });
    assert.equal(missing.status, 401);
    assert.match(problemOf(missing).detail, /missing/);
    const wrong = await post(sbx, message(), { 'x-api-key': 'not-the-key-at-all' });
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(wrong.text, /not-the-key-at-all/);
    const right = await post(sbx, message());
    assert.equal(right.status, 202);
    assert.equal(logs.length, 3);
    assert.match(logs[0] ?? '', / 401 /);
    assert.match(logs[2] ?? '', / 202 accepted sbx_b_/);
    for (const line of logs) {
      assert.ok(!line.includes(KEY) && !line.includes('not-the-key-at-all'), line);
    }
  });
});

test('any non-empty key is accepted when none is configured', async () => {
  await withSandbox({}, async (sbx) => {
    assert.equal((await post(sbx, message(), { 'x-api-key': 'x' })).status, 202);
    assert.equal((await post(sbx, message(), { 'x-api-key': '' })).status, 401);
  });
});

test('404 other paths, 405 other methods with Allow, 415 wrong content type, 400 bad JSON', async () => {
  await withSandbox({}, async (sbx) => {
    assert.equal(problemOf(await post(sbx, message(), {}, '/v1/messages')).status, 404);
    assert.equal((await post(sbx, message(), {}, '/v2/messages/')).status, 404);
    const get = await post(sbx, undefined, {}, '/v2/messages', 'GET');
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.equal((await post(sbx, message(), {}, '/v2/messages', 'PUT')).status, 405);
    assert.equal(problemOf(await post(sbx, message(), { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post(sbx, message(), { 'content-type': 'application/json; charset=latin1' })).status, 415);
    assert.equal((await post(sbx, message(), { 'content-type': 'Application/JSON; charset=UTF-8' })).status, 202);
    const bad = await post(sbx, '{"accountReference":');
    assert.equal(bad.status, 400);
    assert.match(problemOf(bad).detail, /not valid JSON/);
    assert.equal((await post(sbx, Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1'))).status, 400);
  });
});

test('422 problem+json names each field; capped recipient count', async () => {
  await withSandbox({}, async (sbx) => {
    const a = await post(sbx, message({ channel: 'sms', colour: 1, recipients: [{ msisdn: '+447400900123' }, { msisdn: '+447400900124' }, { msisdn: '+447400900125' }, { msisdn: '07400900126' }] }));
    assert.equal(a.status, 422);
    const p = problemOf(a);
    assert.equal(p.type, 'urn:msgr:sandbox:problem:invalid-request');
    // Document order: top-level fields first, then each recipient.
    assert.deepEqual(p.errors?.map((e) => e.field), ['channel', 'colour', 'recipients[3].msisdn']);
    assert.match(p.errors?.[2]?.message ?? '', /international/);
    const many = Array.from({ length: 10_001 }, (_, i) => ({ msisdn: `+4477009${String(i).padStart(5, '0')}` }));
    const over = await post(sbx, message({ recipients: many }));
    assert.equal(over.status, 422);
    assert.equal(problemOf(over).errors?.[0]?.field, 'recipients');
    const full = await post(sbx, message({ recipients: many.slice(0, 10_000) }));
    assert.equal(full.status, 202);
    assert.equal((full.json.messages as unknown[]).length, 10_000);
  });
});

test('413 beyond the body limit, and the connection still answers', async () => {
  await withSandbox({ maxBodyBytes: 2_000 }, async (sbx) => {
    const big = message({ name: 'x'.repeat(3_000) });
    const a = await post(sbx, big);
    assert.equal(problemOf(a).status, 413);
    assert.equal((await post(sbx, message())).status, 202);
  });
});

test('403 when accountReference is not the configured account', async () => {
  await withSandbox({ account: 'EX0000000' }, async (sbx) => {
    assert.equal(problemOf(await post(sbx, message({ accountReference: 'OTHER1' }))).status, 403);
    assert.equal((await post(sbx, message())).status, 202);
  });
});

test('record file: one line per accepted request with the body as received', async () => {
  const record = tempFile('sent.jsonl');
  await withSandbox({ record }, async (sbx) => {
    const one = message({ recipients: [{ msisdn: '+447400900123', variables: { name: 'Ann' }, metaData: { row: '2' } }], metaData: { c: 'x' } });
    const a = await post(sbx, one, { 'idempotency-key': 'k-1' });
    assert.equal(a.status, 202);
    // Read right after the 202, before anything else happens: the line must be there.
    const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    assert.equal(line.batchId, a.json.batchId);
    assert.equal(line.idempotencyKey, 'k-1');
    assert.equal(line.receivedAt, a.json.receivedAt);
    assert.deepEqual(line.request, one);
    // Pretty-printed bodies are re-serialised so the file stays one document per line.
    const b = await post(sbx, JSON.stringify(message(), null, 2));
    assert.equal(b.status, 202);
    assert.equal(await post(sbx, message({ channel: 'x' })).then((r) => r.status), 422);
    const after = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    assert.equal(after.length, 2);
    const second = JSON.parse(after[1] ?? '') as Record<string, unknown>;
    assert.equal(second.idempotencyKey, null);
    assert.deepEqual(second.request, message());
  });
});

test('Idempotency-Key: same body replays the same ids and is recorded once; another body is 422', async () => {
  const record = tempFile('idem.jsonl');
  await withSandbox({ record }, async (sbx) => {
    const body = message({ recipients: [{ msisdn: '+447400900123' }, { msisdn: '+447400900124' }], channel: 'RCS' });
    const first = await post(sbx, body, { 'idempotency-key': 'order-42' });
    const again = await post(sbx, body, { 'idempotency-key': 'order-42' });
    assert.equal(first.status, 202);
    assert.equal(again.status, 202);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const other = await post(sbx, message(), { 'idempotency-key': 'order-42' });
    assert.equal(other.status, 422);
    assert.equal(problemOf(other).type, 'urn:msgr:sandbox:problem:idempotency-key-reused');
    const fresh = await post(sbx, body, { 'idempotency-key': 'order-43' });
    assert.notEqual(fresh.json.batchId, first.json.batchId);
    assert.equal(readFileSync(record, 'utf8').split('\n').filter(Boolean).length, 2);
    assert.deepEqual(sbx.stats(), { requests: 4, accepted: 2, recipients: 4 });
    assert.equal((await post(sbx, body, { 'idempotency-key': 'k'.repeat(256) })).status, 400);
  });
});

test('Idempotency-Key: a second request while the first is in flight is 409', async () => {
  // The first is held 2 s: the second, sent once the sandbox has decided the first (its key in
  // flight from then), meets it in flight however loaded the machine (a 150 ms hold was over
  // before the second came at load 17).
  await withSandbox({ latencyMs: 2000 }, async (sbx) => {
    const first = post(sbx, message(), { 'idempotency-key': 'slow' });
    for (let waited = 0; sbx.stats().requests < 1 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    const second = await post(sbx, message(), { 'idempotency-key': 'slow' });
    assert.equal(second.status, 409);
    assert.equal((await first).status, 202);
    assert.equal((await post(sbx, message(), { 'idempotency-key': 'slow' })).status, 202);
  });
});

test('429 with Retry-After beyond the rate limit', async () => {
  await withSandbox({ rateLimit: 3 }, async (sbx) => {
    // Five at once, a burst of 3 allowed: one after the other, on a loaded machine, they took long
    // enough for the bucket to refill.
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(sbx, message())));
    assert.deepEqual(answers.map((a) => a.status).sort(), [202, 202, 202, 429, 429]);
    assert.deepEqual(answers.filter((a) => a.status === 429).map((a) => a.headers.get('retry-after')), ['1', '1']);
  });
});

test('error rate 1 answers every valid request 500 and records nothing; a seed makes it repeatable', async () => {
  const record = tempFile('none.jsonl');
  await withSandbox({ errorRate: 1, record }, async (sbx) => {
    for (let i = 0; i < 3; i++) {
      const a = await post(sbx, message(), { 'idempotency-key': 'k' });
      assert.equal(problemOf(a).status, 500);
    }
    assert.equal(readFileSync(record, 'utf8'), '');
    assert.equal(sbx.stats().accepted, 0);
  });
  const run = async (): Promise<number[]> => {
    const out: number[] = [];
    await withSandbox({ errorRate: 0.5, seed: 42 }, async (sbx) => {
      for (let i = 0; i < 12; i++) out.push((await post(sbx, message())).status);
    });
    return out;
  };
  const a = await run();
  assert.deepEqual(await run(), a);
  assert.ok(a.includes(500) && a.includes(202), a.join(','));
});

test('latency delays every answer', async () => {
  await withSandbox({ latencyMs: 120 }, async (sbx) => {
    const t0 = performance.now();
    assert.equal((await post(sbx, message())).status, 202);
    assert.ok(performance.now() - t0 >= 115, 'answered too early');
  });
});

test('16 parallel connections with 1,000-recipient bodies all arrive once', async () => {
  const record = tempFile('par.jsonl');
  await withSandbox({ record }, async (sbx) => {
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, r) =>
        post(sbx, message({ recipients: Array.from({ length: 1_000 }, (_, i) => ({ msisdn: `+4477${String(r).padStart(2, '0')}${String(i).padStart(6, '0')}`, variables: { i: String(i) } })) })),
      ),
    );
    assert.deepEqual(results.map((a) => a.status), Array<number>(16).fill(202));
    const seen = new Set<string>();
    for (const line of readFileSync(record, 'utf8').split('\n').filter(Boolean)) {
      for (const r of (JSON.parse(line) as { request: { recipients: Array<{ msisdn: string }> } }).request.recipients) seen.add(r.msisdn);
    }
    assert.equal(seen.size, 16_000);
    assert.equal(sbx.stats().recipients, 16_000);
  });
});

test('refuses a non-loopback host and bad options; close is idempotent', async () => {
  await assert.rejects(startSandbox({ host: '0.0.0.0', port: 0 }), UsageError);
  await assert.rejects(startSandbox({ port: 70_000 }), UsageError);
  await assert.rejects(startSandbox({ port: 0, errorRate: 1.5 }), UsageError);
  await assert.rejects(startSandbox({ port: 0, record: join(tempFile('x'), 'no', 'such') }), /record file/);
  const sbx = await startSandbox({ port: 0, host: 'localhost' });
  assert.match(sbx.url, /^http:\/\/localhost:\d+$/);
  await assert.rejects(startSandbox({ port: sbx.port, host: 'localhost' }), /already in use/);
  await Promise.all([sbx.close(), sbx.close()]);
  await assert.rejects(fetch(`${sbx.url}/v2/messages`, { method: 'POST' }));
});
