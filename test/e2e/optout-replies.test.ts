// Opt-outs as people write them, through the real listener (docs/optouts.md: "From replies",
// "Possible opt-outs"): a service `msgr listen --optouts -q` fed replies by the sandbox
// (--reply-rate) and by `msgr trigger`; what a send then does with each number.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, msgrCommand, ROOT, runCli, tempDir } from '../support/cli.js';
import { freePort, SANDBOX_URL, startMsgr, waitFor } from '../support/daemon.js';

const TOKEN = 'e2e-optout-replies-token-0123';

interface Listed {
  numbers: Array<{ number: string; source: string; evidence: { text?: string; word?: string } | null }>;
}

interface Quiet {
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
}

/**
 * `msgr listen --optouts -q` as a service runs it: it prints nothing but warnings, so it is ready
 * once its URL answers.
 */
async function quietListener(env: Record<string, string>, port: number): Promise<Quiet> {
  const url = `http://127.0.0.1:${port}/${TOKEN}`;
  const child = spawn(...msgrCommand(['listen', '--port', String(port), '--account', 'ACME', '--optouts', '-q']), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  let up = false;
  await waitFor('the listener to answer', () => {
    void fetch(url).then((r) => (up = r.status === 200), () => undefined);
    return up;
  });
  return {
    stdout: () => out,
    stderr: () => err,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGINT');
      return exit;
    },
  };
}

describe('replies as people write them', () => {
  test('the sandbox replies "STOP please": opted out per se, with the word; tel: senders are numbers; a sender that is no number, and a possible opt-out, are warnings under -q', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
    const port = await freePort();
    const listen = await quietListener(env, port);
    const url = `http://127.0.0.1:${port}/${TOKEN}`;
    const sbx = await startMsgr(['sandbox', '--port', '0', '--webhook-url', url, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'STOP please 🙂'], env, SANDBOX_URL);
    try {
      const numbers = ['+447400900301', '+447400900302'];
      const r = await fetch(`${sbx.ready}/v2/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify({ accountReference: 'ACME', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: numbers.map((msisdn) => ({ msisdn })) }),
      });
      assert.equal(r.status, 202);
      await waitFor('both replies recorded', () => {
        const out = runCliSync(env, ['optout', 'list', '--account', 'ACME', '--json']);
        return (JSON.parse(out) as Listed).numbers.length === 2;
      });
      const listed = (JSON.parse(runCliSync(env, ['optout', 'list', '--account', 'ACME', '--json'])) as Listed).numbers;
      assert.deepEqual(listed.map((n) => [n.number, n.source, n.evidence?.text, n.evidence?.word]).sort(), numbers.map((n) => [n, 'reply', 'STOP please 🙂', 'stop']));

      const trigger = async (number: string, text: string): Promise<void> => {
        const t = await runCli(['trigger', 'inbound', '--url', url, '--number', number, '--text', text], { env });
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
      const replayed = await runCli(['listen', 'replay', ...offered], { env });
      assert.equal(replayed.code, 0, replayed.stderr);
      assert.match(replayed.stdout, /inbound .*"Acme"|Acme/);
      assert.match(listen.stderr(), /^warning: possible opt-out from \+447400900304: "please remove me from your list" \(reply, \S+; an informal request "remove me"\); sends to it stop until a person decides: msgr optout possible --accept \+447400900304 --account ACME \(an opt-out\), or --dismiss \+447400900304 --account ACME \(not one\)$/m);
      const check = await runCli(['optout', 'check', '--account', 'ACME', '+447400900301', '+447400900302', '+447400900303', '+447400900304'], { env });
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

  test('a possible opt-out stops every send to its number (exit 2, named) until msgr optout possible decides, in one step', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
    const port = await freePort();
    const listen = await quietListener(env, port);
    const url = `http://127.0.0.1:${port}/${TOKEN}`;
    try {
      for (const [number, text] of [['+447400900311', 'no more messages pls'], ['+447400900312', "please don't stop these"]] as const) {
        assert.equal((await runCli(['trigger', 'inbound', '--url', url, '--number', number, '--text', text], { env })).code, 0);
      }
      const possible = await runCli(['optout', 'possible', '--account', 'ACME'], { env });
      assert.equal(possible.code, 0, possible.stderr);
      assert.match(possible.stdout, /^\+447400900311 {2}"no more messages pls" \(reply, \S+; an informal request "no more messages"\)\n\+447400900312 {2}"please don't stop these" \(reply, \S+; a stop word negated "please don't stop"\)\n$/);
      assert.match(possible.stderr, /2 possible opt-outs to decide for account ACME: sends to their numbers stop until then\./);

      // send: stopped, naming the number and both decisions.
      const send = await runCli(['send', '--sandbox', '--account', 'ACME', '--from', 'Acme', '--to', '+447400900311', '--to', '+447400900399', '--text', 'Hi', '--json'], { env });
      assert.equal(send.code, 2, send.stderr);
      assert.match(send.stderr, /error: \+447400900311 has a possible opt-out no one has decided on: "no more messages pls" \(reply, \S+; an informal request "no more messages"\); nothing was sent/);
      assert.match(send.stderr, /hint: A person reads the reply and decides: msgr optout possible --accept \+447400900311 --account ACME \(it is an opt-out/);
      assert.deepEqual((JSON.parse(send.stdout) as { possibleOptOuts: Array<{ number: string }> }).possibleOptOuts.map((p) => p.number), ['+447400900311']);
      // send-bulk: stopped before anything is sent, naming the numbers with their lines.
      const csv = join(dir, 'list.csv');
      writeFileSync(csv, 'phone\n+447400900311\n+447400900312\n+447400900313\n');
      const bulk = await runCli(['send-bulk', csv, '--sandbox', '--account', 'ACME', '--from', 'Acme', '--text', 'Hi'], { env });
      assert.equal(bulk.code, 2, bulk.stderr);
      assert.match(bulk.stderr, /error: 2 rows of \S+list\.csv whose numbers have possible opt-outs no one has decided on; nothing was sent:\n {2}\+447400900311 \(line 2\): "no more messages pls"/);
      assert.doesNotMatch(bulk.stderr, /sandbox: \d+ recipients? accepted|accepted in/);

      // One step each: accepted is an opt-out, dismissed is messageable.
      const decide = await runCli(['optout', 'possible', '--account', 'ACME', '--accept', '+447400900311', '--dismiss', '+447400900312', '--note', 'read by the front desk'], { env });
      assert.equal(decide.code, 0, decide.stderr);
      assert.match(decide.stderr, /ok: \+447400900311: opted out/);
      assert.match(decide.stderr, /ok: \+447400900312: not an opt-out; sends to it go on/);
      const sent = await runCli(['send-bulk', csv, '--sandbox', '--account', 'ACME', '--from', 'Acme', '--text', 'Hi', '--json'], { env });
      assert.equal(sent.code, 0, sent.stderr);
      const doc = JSON.parse(sent.stdout) as { suppressed: number; accepted: number };
      assert.deepEqual([doc.suppressed, doc.accepted], [1, 2]);
      const none = await runCli(['optout', 'possible', '--account', 'ACME', '--json'], { env });
      assert.deepEqual((JSON.parse(none.stdout) as { possible: unknown[] }).possible, []);
    } finally {
      await listen.stop();
    }
  });
});

/** A quick synchronous `msgr …` for polling: its stdout. */
function runCliSync(env: Record<string, string>, args: string[]): string {
  const [command, rest] = msgrCommand(args);
  return execFileSync(command, rest, { cwd: ROOT, env, encoding: 'utf8' });
}
