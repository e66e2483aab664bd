// Opt-outs as people write them, through msgr listen (docs/optouts.md: "From replies", "Possible
// opt-outs"), in-process: a service's `msgr listen --optouts -q` fed replies by the sandbox
// (--reply-rate) and by msgr trigger; what it records, and the warnings it gives under -q.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { SANDBOX_URL, waitFor } from '../../../support/daemon.js';
import { runInProcess, startInProcess } from '../../../support/in-process.js';
import { quietListener } from '../../../support/listener.js';

interface Listed {
  numbers: Array<{ number: string; source: string; evidence: { text?: string; word?: string } | null }>;
}

describe('replies as people write them', () => {
  test('the sandbox replies "STOP please": opted out per se, with the word; tel: senders are numbers; a sender that is no number, and a possible opt-out, are warnings under -q', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const { listen, url } = await quietListener(env, 'ACME');
    const sbx = await startInProcess(['sandbox', '--port', '0', '--webhook-url', url, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'STOP please 🙂'], env, SANDBOX_URL);
    try {
      const numbers = ['+447400900301', '+447400900302'];
      const r = await fetch(`${sbx.ready}/v2/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ accountReference: 'ACME', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: numbers.map((msisdn) => ({ msisdn })) }),
      });
      assert.equal(r.status, 202);
      const list = async (): Promise<Listed['numbers']> => (JSON.parse((await runInProcess(['optout', 'list', '--account', 'ACME', '--json'], { env })).stdout) as Listed).numbers;
      await waitFor('both replies recorded', async () => (await list()).length === 2);
      const listed = await list();
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
