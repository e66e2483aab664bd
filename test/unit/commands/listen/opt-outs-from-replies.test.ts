// Opt-outs from replies as msgr listen records them (docs/optouts.md: "From replies", "Possible
// opt-outs"), in-process: STOP replies from the sandbox and msgr trigger reach the account's
// store before their answer, other replies do not, START takes the sender off; --optouts FILE
// keeps a plain list; replies as people write them ("STOP please", tel: senders, a sender that is
// no number, an informal request) to a service's `msgr listen --optouts -q`, and its warnings.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { LISTENING, SANDBOX_URL, waitFor } from '../../../support/daemon.js';
import { runInProcess, startInProcess } from '../../../support/in-process.js';
import { quietListener } from '../../../support/listener.js';
import { listedOptOuts } from '../../../support/optouts.js';

describe('stop replies reach the opt-out store', () => {
  test("STOP replies reach the account's store before their answer; other replies do not; START takes the sender off", async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const listen = await startInProcess(['listen', '--port', '0', '--account', 'ACME', '--optouts', '--undeliverable'], env, LISTENING);
    const record = join(dir, 'acked.jsonl');
    // A sandbox that fails to start must not leave the listener keeping the file's process alive.
    const sbx = await startInProcess(['sandbox', '--port', '0', '--webhook-url', listen.ready, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'Stop.', '--webhook-record', record], env, SANDBOX_URL).catch(async (err: unknown) => {
      await listen.stop();
      throw err;
    });
    const numbers = ['+447400900201', '+447400900202', '+447400900203'];
    try {
      const r = await fetch(`${sbx.ready}/v2/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ accountReference: 'ACME', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: numbers.map((msisdn) => ({ msisdn })) }),
      });
      assert.equal(r.status, 202);
      // Each reply is acknowledged only once its opt-out is on disk: the store has it by then.
      await waitFor('6 events acknowledged', () => readFileSync(record, 'utf8').split('\n').filter(Boolean).length === 6);
      const listed = await listedOptOuts(env, 'ACME');
      assert.deepEqual(listed.map((n) => n.number).sort(), numbers);
      for (const n of listed) {
        assert.equal(n.source, 'reply');
        assert.equal(n.reason, 'opt-out');
        assert.equal(n.evidence?.text, 'Stop.');
        assert.match(n.evidence?.event ?? '', /^ev_/);
        assert.match(n.evidence?.messageId ?? '', /^sbx_m_/);
      }
      assert.equal(statSync(join(dir, 'optouts', 'ACME.jsonl')).mode & 0o777, 0o600);
      // A reply with no stop word in it changes nothing; one with a stop word among other words
      // opts out (47 CFR 64.1200(a)(10)); START takes the sender off.
      assert.equal((await runInProcess(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900204', '--text', 'please stop it'], { env })).code, 0);
      assert.equal((await runInProcess(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900207', '--text', 'see you then'], { env })).code, 0);
      assert.equal((await runInProcess(['trigger', 'inbound', '--url', listen.ready, '--number', '+447400900201', '--text', 'START'], { env })).code, 0);
      // A permanent failure: undeliverable; a temporary one: nothing.
      assert.equal((await runInProcess(['trigger', 'failed', '--url', listen.ready, '--number', '+447400900205'], { env })).code, 0);
      assert.equal((await runInProcess(['trigger', 'failed', '--temporary', '--url', listen.ready, '--number', '+447400900206'], { env })).code, 0);
      const check = await runInProcess(['optout', 'check', '--account', 'ACME', '+447400900201', '+447400900202', '+447400900204', '+447400900205', '+447400900206', '+447400900207'], { env });
      assert.equal(check.code, 0, check.stderr);
      assert.deepEqual(check.stdout.trim().split('\n').map((l) => l.replace(/ since \S+,/, ',')), [
        '+447400900201  not opted out',
        '+447400900202  opted out, reply "Stop."',
        '+447400900204  opted out, reply "please stop it" (stop word "stop")',
        '+447400900205  undeliverable, receipt (unknown-subscriber)',
        '+447400900206  not opted out',
        '+447400900207  not opted out',
      ]);
      await waitFor('the lines', () => /re-subscribed/.test(listen.stdout()) && /added as undeliverable/.test(listen.stdout()));
      assert.match(listen.stdout(), /inbound\s+\+447400900202\s+sbx_m_\w+\s+"Stop\."\s+→ opted out/);
      assert.match(listen.stdout(), /inbound\s+\+447400900204\s+"please stop it"\s+→ opted out/);
      assert.match(listen.stdout(), /inbound\s+\+447400900207\s+"see you then"\n/);
    } finally {
      await sbx.stop();
      await listen.stop();
    }
    // Another account does not see ACME's opt-outs; the export is a list --exclude reads.
    const other = await runInProcess(['optout', 'check', '--account', 'OTHER', '+447400900202'], { env });
    assert.equal(other.stdout, '+447400900202  not opted out\n');
    const exported = await runInProcess(['optout', 'export', '--account', 'ACME'], { env });
    // Oldest opt-out first: the two replies came in either order, the receipt after them.
    assert.deepEqual(exported.stdout.split('\n').slice(0, 2).sort(), ['+447400900202', '+447400900203']);
    assert.equal(exported.stdout.split('\n').slice(2).join('\n'), '+447400900204\n+447400900205\n');
  });

  test('--optouts FILE writes a plain list, one number a line, that send-bulk --exclude leaves out', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const list = join(dir, 'stop.txt');
    // --stop-words adds to the FCC's words, which always apply.
    const listen = await startInProcess(['listen', '--port', '0', '--optouts', list, '--stop-words', 'ARRET'], env, LISTENING);
    try {
      for (const [n, text] of [['+447400900211', 'arret'], ['+447400900212', 'STOP'], ['+447400900212', 'stop'], ['+447400900214', 'thanks']]) {
        assert.equal((await runInProcess(['trigger', 'inbound', '--url', listen.ready, '--number', n ?? '', '--text', text ?? ''], { env })).code, 0);
      }
    } finally {
      await listen.stop();
    }
    assert.equal(readFileSync(list, 'utf8'), '+447400900211\n+447400900212\n');
    const csv = join(dir, 'people.csv');
    writeFileSync(csv, 'phone\n+447400900211\n+447400900212\n+447400900213\n');
    const dry = await runInProcess(['send-bulk', csv, '--sandbox', '--from', 'Acme', '--text', 'Hi', '--exclude', list, '--dry-run', '--json'], { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /"excluded": 2/);
  });
});

describe('replies as people write them', () => {
  test('the sandbox replies "STOP please": opted out per se, with the word; tel: senders are numbers; a sender that is no number, and a possible opt-out, are warnings under -q', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const { listen, url } = await quietListener(env, 'ACME');
    const sbx = await startInProcess(['sandbox', '--port', '0', '--webhook-url', url, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'STOP please 🙂'], env, SANDBOX_URL).catch(async (err: unknown) => {
      await listen.stop();
      throw err;
    });
    try {
      const numbers = ['+447400900301', '+447400900302'];
      const r = await fetch(`${sbx.ready}/v2/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ accountReference: 'ACME', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: numbers.map((msisdn) => ({ msisdn })) }),
      });
      assert.equal(r.status, 202);
      await waitFor('both replies recorded', async () => (await listedOptOuts(env, 'ACME')).length === 2);
      const listed = await listedOptOuts(env, 'ACME');
      assert.deepEqual(listed.map((n) => [n.number, n.source, n.evidence?.text, n.evidence?.word]).sort(), numbers.map((n) => [n, 'reply', 'STOP please 🙂', 'stop']));

      const trigger = async (number: string, text: string): Promise<void> => {
        const t = await runInProcess(['trigger', 'inbound', '--url', url, '--number', number, '--text', text], { env });
        assert.equal(t.code, 0, t.stderr);
      };
      // A tel: URI is a number (RFC 3966): its STOP is recorded.
      await trigger('tel:+44-7400-900303;phone-context=example.com', 'Please stop texting me');
      // A sender that is no number cannot be opted out: a warning, under -q too.
      await trigger('Acme', 'STOP');
      // An informal request, without the words: a possible opt-out, a warning under -q.
      await trigger('+447400900304', 'please remove me from your list');
      // START as the whole reply opts back in.
      await trigger('+447400900302', 'Start');
      await waitFor('the warnings', () => /possible opt-out from \+447400900304/.test(listen.stderr()) && /not a phone number/.test(listen.stderr()));
      assert.equal(listen.stdout(), '', '-q: no line per event');
      assert.match(listen.stderr(), /^warning: a reply that reads as an opt-out came from "Acme", which is not a phone number: nothing was recorded \(ev_\S+; msgr listen replay --filter id=ev_\S+ --account ACME\)\. If it is one, add it by hand: msgr optout add NUMBER --account ACME --note "…"$/m);
      // The replay the warning offers is accepted as printed, and shows that event.
      const offered = /msgr listen replay (--filter id=ev_\S+ --account ACME)\)/.exec(listen.stderr())?.[1]?.split(' ') ?? [];
      const replayed = await runInProcess(['listen', 'replay', ...offered], { env });
      assert.equal(replayed.code, 0, replayed.stderr);
      assert.match(replayed.stdout, /inbound .*"Acme"|Acme/);
      assert.match(listen.stderr(), /^warning: possible opt-out from \+447400900304: "please remove me from your list" \(reply, \S+; an informal request "remove me"\); sends to it stop until a person decides: msgr optout possible --accept \+447400900304 --account ACME \(an opt-out\), or --dismiss \+447400900304 --account ACME \(not one\)$/m);
      const check = await runInProcess(['optout', 'check', '--account', 'ACME', '+447400900301', '+447400900302', '+447400900303', '+447400900304'], { env });
      assert.deepEqual(check.stdout.trim().split('\n').map((l) => l.replace(/ since \S+,/, ',')), [
        '+447400900301  opted out, reply "STOP please 🙂" (stop word "stop")',
        '+447400900302  not opted out',
        '+447400900303  opted out, reply "Please stop texting me" (stop word "stop")',
        '+447400900304  not opted out',
      ]);
    } finally {
      await sbx.stop();
      await listen.stop();
    }
  });
});
