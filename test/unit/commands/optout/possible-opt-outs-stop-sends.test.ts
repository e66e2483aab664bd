// A possible opt-out (docs/optouts.md: "Possible opt-outs"), in-process: recorded by msgr listen
// from a reply msgr trigger posts, it stops every send to its number (send, send-bulk: exit 2,
// named) until msgr optout possible decides, in one step.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { quietListener } from '../../../support/listener.js';

describe('a possible opt-out until a person decides', () => {
  test('a possible opt-out stops every send to its number (exit 2, named) until msgr optout possible decides, in one step', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const { listen, url } = await quietListener(env, 'ACME');
    try {
      for (const [number, text] of [['+447400900311', 'no more messages pls'], ['+447400900312', "please don't stop these"]] as const) {
        assert.equal((await runInProcess(['trigger', 'inbound', '--url', url, '--number', number, '--text', text], { env })).code, 0);
      }
      const possible = await runInProcess(['optout', 'possible', '--account', 'ACME'], { env });
      assert.equal(possible.code, 0, possible.stderr);
      assert.match(possible.stdout, /^\+447400900311 {2}"no more messages pls" \(reply, \S+; an informal request "no more messages"\)\n\+447400900312 {2}"please don't stop these" \(reply, \S+; a stop word negated "please don't stop"\)\n$/);
      assert.match(possible.stderr, /2 possible opt-outs to decide for account ACME: sends to their numbers stop until then\./);

      // send: stopped, naming the number and both decisions.
      const send = await runInProcess(['send', '--sandbox', '--account', 'ACME', '--from', 'Acme', '--to', '+447400900311', '--to', '+447400900399', '--text', 'Hi', '--json'], { env });
      assert.equal(send.code, 2, send.stderr);
      assert.match(send.stderr, /error: \+447400900311 has a possible opt-out no one has decided on: "no more messages pls" \(reply, \S+; an informal request "no more messages"\); nothing was sent/);
      assert.match(send.stderr, /hint: A person reads the reply and decides: msgr optout possible --accept \+447400900311 --account ACME \(it is an opt-out/);
      assert.deepEqual((JSON.parse(send.stdout) as { possibleOptOuts: Array<{ number: string }> }).possibleOptOuts.map((p) => p.number), ['+447400900311']);
      // send-bulk: stopped before anything is sent, naming the numbers with their lines.
      const csv = join(dir, 'list.csv');
      writeFileSync(csv, 'phone\n+447400900311\n+447400900312\n+447400900313\n');
      const bulk = await runInProcess(['send-bulk', csv, '--sandbox', '--account', 'ACME', '--from', 'Acme', '--text', 'Hi'], { env });
      assert.equal(bulk.code, 2, bulk.stderr);
      assert.match(bulk.stderr, /error: 2 rows of \S+list\.csv whose numbers have possible opt-outs no one has decided on; nothing was sent:\n {2}\+447400900311 \(line 2\): "no more messages pls"/);
      assert.doesNotMatch(bulk.stderr, /sandbox: \d+ recipients? accepted|accepted in/);

      // One step each: accepted is an opt-out, dismissed is messageable.
      const decide = await runInProcess(['optout', 'possible', '--account', 'ACME', '--accept', '+447400900311', '--dismiss', '+447400900312', '--note', 'read by the front desk'], { env });
      assert.equal(decide.code, 0, decide.stderr);
      assert.match(decide.stderr, /ok: \+447400900311: opted out/);
      assert.match(decide.stderr, /ok: \+447400900312: not an opt-out; sends to it go on/);
      const sent = await runInProcess(['send-bulk', csv, '--sandbox', '--account', 'ACME', '--from', 'Acme', '--text', 'Hi', '--json'], { env });
      assert.equal(sent.code, 0, sent.stderr);
      const doc = JSON.parse(sent.stdout) as { suppressed: number; accepted: number };
      assert.deepEqual([doc.suppressed, doc.accepted], [1, 2]);
      const none = await runInProcess(['optout', 'possible', '--account', 'ACME', '--json'], { env });
      assert.deepEqual((JSON.parse(none.stdout) as { possible: unknown[] }).possible, []);
    } finally {
      await listen.stop();
    }
  });
});
