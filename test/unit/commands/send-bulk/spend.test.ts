// What a campaign may spend, in-process against a fake API: a canary (--limit) and its resume,
// --max-cost, --mobile-only, --gsm-safe (docs/cost-and-canary.md). Every request that would have
// left is asserted at the fake API.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { fakeApi, type FakeRequest } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, runInProcess, sendBulk as run } from '../../../support/in-process.js';

const numbersOf = (r: FakeRequest): string[] => (r.body.recipients ?? []).map((x) => x.msisdn);

/** The journal lines of the one run in a state folder. */
function journalLines(stateDir: string): Array<Record<string, unknown>> {
  const runs = join(stateDir, 'runs');
  const folder = readdirSync(runs).find((f) => f.startsWith('list.csv-'));
  assert.ok(folder !== undefined, 'no run folder');
  return readFileSync(join(runs, folder, 'journal.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('--limit: a canary', () => {
  test('the first whole requests within the limit go, the journal says why the run stopped, and --resume sends the rest exactly once', async () => {
    const c = bulkFiles(25, 'msgr-limit-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hello', '--batch-size', '5'];
    const first = fakeApi();
    const ctx = fakeContext({ env: c.env, http: first.http });
    const err = await run(ctx, [...argv, '--limit', '12', '--json']);
    assert.equal(err, undefined, err?.message);
    // Whole requests of 5 within 12: two of them, 10 rows.
    assert.deepEqual(first.requests.map(numbersOf), [c.numbers.slice(0, 5), c.numbers.slice(5, 10)]);
    const doc = JSON.parse(ctx.out()) as { accepted: number; notSent: number; stopped: string; resume: string; spend: { limit: number }; exitCode: number };
    assert.deepEqual([doc.accepted, doc.notSent, doc.stopped, doc.spend.limit, doc.exitCode], [10, 15, 'limit', 12, ExitCode.OK]);
    assert.match(doc.resume, /--resume/);
    assert.match(ctx.err(), /--limit 12: this command sends the first 12 recipients \(10: requests of 5 are never split\), then stops; a resume sends the rest/);
    assert.match(ctx.err(), /stopped at --limit 12: 15 recipients left to send; send them with: msgr send-bulk .*--resume/);
    const stop = journalLines(join(c.dir, 'state')).filter((l) => l.type === 'stop');
    assert.deepEqual(stop.map((l) => [l.reason, l.limit]), [['limit', 12]]);

    const second = fakeApi();
    assert.equal(await run(fakeContext({ env: c.env, http: second.http }), [...argv, '--resume']), undefined);
    assert.deepEqual(second.requests.map(numbersOf), [c.numbers.slice(10, 15), c.numbers.slice(15, 20), c.numbers.slice(20, 25)]);
    // Together: every row once.
    const all = [...first.requests, ...second.requests].flatMap(numbersOf);
    assert.deepEqual(all, c.numbers);
    assert.equal(new Set([...first.requests, ...second.requests].map((r) => r.idempotencyKey)).size, 5);
  });

  test('a canary smaller than a request is sent exactly: the run\'s requests are that size', async () => {
    const c = bulkFiles(8, 'msgr-limit-');
    const api = fakeApi();
    const err = await run(fakeContext({ env: c.env, http: api.http }), [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '3']);
    assert.equal(err, undefined, err?.message);
    assert.deepEqual(api.requests.map(numbersOf), [c.numbers.slice(0, 3)]);
    // A canary's dry run (of a file with no run yet) says the whole file in all, and what this command would send of it.
    const d = bulkFiles(8, 'msgr-limit-dry-');
    const dry = fakeContext({ env: d.env, http: fakeApi().http });
    assert.equal(await run(dry, [d.file, '--from', 'Acme', '--text', 'Hello', '--limit', '2', '--dry-run']), undefined);
    assert.match(dry.err(), /dry run: 8 recipients in 4 requests in all; with --limit 2 this command would send the first whole requests within 2 of them, then stop; nothing was sent\n/);
  });

  test('a limit smaller than the request size given is refused before anything is sent, offering what works', async () => {
    const c = bulkFiles(8, 'msgr-limit-');
    const api = fakeApi();
    const err = await run(fakeContext({ env: c.env, http: api.http }), [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '3', '--batch-size', '5']);
    assert.equal(err?.exitCode, ExitCode.USAGE);
    assert.match(err?.message ?? '', /--limit 3 is smaller than one request of 5 recipients: nothing would be sent/);
    assert.equal(err?.hint, 'Give --limit 5, or --batch-size 3 with it.');
    assert.equal(api.requests.length, 0);
  });

  test('a limit as large as the file sends everything and ends as a run that finished', async () => {
    const c = bulkFiles(4, 'msgr-limit-');
    const api = fakeApi();
    const ctx = fakeContext({ env: c.env, http: api.http });
    assert.equal(await run(ctx, [c.file, '--from', 'Acme', '--text', 'Hello', '--limit', '4', '--json']), undefined);
    const doc = JSON.parse(ctx.out()) as { accepted: number; stopped: string | null; resume: string | null };
    assert.deepEqual([doc.accepted, doc.stopped, doc.resume], [4, null, null]);
  });
});

describe('--price-file and --max-cost', () => {
  test('the preflight estimates the cost per country; --max-cost refuses to start above it, naming it and offering a cap that is accepted', async () => {
    const c = bulkFiles(6, 'msgr-cost-');
    const prices = join(c.dir, 'prices.csv');
    writeFileSync(prices, 'prefix,price,currency\n+44,0.05,EUR\nGG,0.04,EUR\n');
    // 170 GSM-7 characters: 2 parts a message, 12 parts, EUR 0.48.
    const argv = [c.file, '--from', 'Acme', '--text', 'x'.repeat(170), '--price-file', prices];
    const api = fakeApi();
    // The command as typed: the refusal edits it.
    const ctx = { ...fakeContext({ env: c.env, http: api.http }), argv: ['send-bulk', ...argv, '--max-cost', '0.40', '--json'] };
    const err = await run(ctx, [...argv, '--max-cost', '0.40', '--json']);
    assert.equal(err?.exitCode, ExitCode.USAGE);
    assert.equal(err?.message, 'the cost estimate, EUR 0.48 for 12 SMS parts, is above --max-cost EUR 0.40; nothing was sent');
    assert.match(err?.hint ?? '', /To send at this estimate: msgr send-bulk .*--max-cost 1 --json$/);
    assert.match(ctx.err(), /cost estimate: EUR 0\.48 for 12 SMS parts \(prices from .*prices\.csv; an estimate, not a bill\)\n {4}GG: 6 messages, 12 parts, EUR 0\.48/);
    assert.equal(api.requests.length, 0);
    const doc = err?.json as { stopped: string; spend: { estimate: { total: string; currency: string; countries: unknown[] }; maxCost: string } };
    assert.equal(doc.stopped, 'max-cost');
    assert.deepEqual([doc.spend.estimate.total, doc.spend.estimate.currency, doc.spend.maxCost], ['0.48', 'EUR', '0.40']);
    assert.deepEqual(doc.spend.estimate.countries, [{ country: 'GG', messages: 6, parts: 12, cost: '0.48', unpriced: 0 }]);

    // The command the refusal offers is accepted.
    const ok = fakeApi();
    assert.equal(await run(fakeContext({ env: c.env, http: ok.http }), [...argv, '--max-cost', '1']), undefined);
    assert.deepEqual(ok.requests.flatMap(numbersOf), c.numbers);
  });

  test('a resume estimates and caps as its run started: the journal keeps the price file and the cap', async () => {
    const c = bulkFiles(10, 'msgr-cost-');
    const prices = join(c.dir, 'prices.csv');
    writeFileSync(prices, '+44,0.05,EUR\n');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '5'];
    const first = fakeApi();
    assert.equal(await run(fakeContext({ env: c.env, http: first.http }), [...argv, '--price-file', prices, '--max-cost', '1', '--limit', '5']), undefined);
    assert.equal(first.requests.length, 1);
    const second = fakeApi();
    const ctx = fakeContext({ env: c.env, http: second.http });
    assert.equal(await run(ctx, [...argv, '--resume', '--json']), undefined);
    assert.match(ctx.err(), /cost estimate of the whole run: EUR 0\.50 for 10 SMS parts/);
    const doc = JSON.parse(ctx.out()) as { spend: { maxCost: string; estimate: { total: string } } };
    assert.deepEqual([doc.spend.maxCost, doc.spend.estimate.total], ['1', '0.50']);
    assert.deepEqual(second.requests.flatMap(numbersOf), c.numbers.slice(5));
  });

  test('a resume whose price file is gone sends without an estimate when no cap depends on it, and says so', async () => {
    const c = bulkFiles(10, 'msgr-cost-');
    const prices = join(c.dir, 'prices.csv');
    writeFileSync(prices, '+44,0.05,EUR\n');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '5'];
    assert.equal(await run(fakeContext({ env: c.env, http: fakeApi().http }), [...argv, '--price-file', prices, '--limit', '5']), undefined);
    rmSync(prices);
    const second = fakeApi();
    const ctx = fakeContext({ env: c.env, http: second.http });
    assert.equal(await run(ctx, [...argv, '--resume']), undefined);
    assert.match(ctx.err(), /the price file the run started with, .*prices\.csv, is gone: no cost estimate \(give --price-file FILE for one\)/);
    assert.deepEqual(second.requests.flatMap(numbersOf), c.numbers.slice(5));
  });

  test('a bad price file stops the run before anything is sent, naming the file, line and field', async () => {
    const c = bulkFiles(2, 'msgr-cost-');
    const prices = join(c.dir, 'prices.csv');
    writeFileSync(prices, 'GB,0.05,EUR\nDE,0.07\n');
    const api = fakeApi();
    const err = await run(fakeContext({ env: c.env, http: api.http }), [c.file, '--from', 'Acme', '--text', 'Hi', '--price-file', prices]);
    assert.equal(err?.exitCode, ExitCode.USAGE);
    assert.match(err?.message ?? '', /prices\.csv, line 2, currency \(field 3\): is empty$/);
    assert.equal(api.requests.length, 0);
  });
});

describe('--mobile-only', () => {
  test('numbers typed fixed line, toll-free, premium rate or UAN are left out and reported as filtered with their type; "fixed line or mobile" is kept', async () => {
    const c = bulkFiles(1, 'msgr-mobile-');
    const file = join(c.dir, 'types.csv');
    writeFileSync(file, 'msisdn,name\n+447400123456,A\n+442079460000,B\n+448001234567,C\n+14155550123,D\n+449001234567,E\n+445512345678,F\n+33612345678,G\n');
    const report = join(c.dir, 'report.csv');
    const api = fakeApi();
    const ctx = fakeContext({ env: c.env, http: api.http });
    const err = await run(ctx, [file, '--from', 'Acme', '--text', 'Hello', '--mobile-only', '--report', report, '--json']);
    assert.equal(err, undefined, err?.message);
    assert.deepEqual(api.requests.flatMap(numbersOf), ['+447400123456', '+14155550123', '+33612345678']);
    assert.match(ctx.err(), /--mobile-only: 4 rows left out \(filtered\): 1 fixed line, 1 toll-free, 1 premium rate, 1 UAN \(a company's national number\) \(lines 3, 4, 6, 7\); 1 typed "fixed line or mobile" \(the plan cannot tell\), kept/);
    assert.match(ctx.err(), /skipped before sending: 4 filtered \(--mobile-only\)/);
    const doc = JSON.parse(ctx.out()) as { toSend: number; accepted: number; spend: { mobileOnly: unknown } };
    assert.deepEqual([doc.toSend, doc.accepted], [3, 3]);
    assert.deepEqual(doc.spend.mobileOnly, { filtered: 4, byType: { FIXED_LINE: 1, TOLL_FREE: 1, PREMIUM_RATE: 1, UAN: 1 }, fixedLineOrMobileKept: 1 });
    const rows = readFileSync(report, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 3).concat(l.split(',')[5] ?? '').join(','));
    assert.deepEqual(rows, [
      '2,+447400123456,accepted,',
      '3,+442079460000,filtered,fixed line (--mobile-only)',
      '4,+448001234567,filtered,toll-free (--mobile-only)',
      '5,+14155550123,accepted,',
      '6,+449001234567,filtered,premium rate (--mobile-only)',
      '7,+445512345678,filtered,UAN (a company\'s national number) (--mobile-only)',
      '8,+33612345678,accepted,',
    ]);
  });
});

describe('--gsm-safe', () => {
  const TEXT = 'Hello, your order is ready for collection at our shop. We\u2019re open until 6pm today and tomorrow \u2013 bring this message\u2026 Thanks!';

  test('without it, the preflight names the parts the look-alikes cost and offers the flag', async () => {
    const c = bulkFiles(4, 'msgr-gsm-');
    const ctx = fakeContext({ env: c.env });
    assert.equal(await run(ctx, [c.file, '--from', 'Acme', '--text', TEXT, '--dry-run']), undefined);
    assert.match(ctx.err(), /look-alikes in the text: \u2019 \(U\+2019\), \u2013 \(U\+2013\), \u2026 \(U\+2026\) cost 2 SMS parts a message instead of 1 \(4 more in all\); --gsm-safe replaces them with GSM-7 characters/);
  });

  test('with it, the text is sent in GSM-7, the first change and the parts saved are shown, and nothing else changes', async () => {
    const c = bulkFiles(4, 'msgr-gsm-');
    const api = fakeApi();
    const ctx = fakeContext({ env: c.env, http: api.http });
    assert.equal(await run(ctx, [c.file, '--from', 'Acme', '--text', `${TEXT} Zo\u00e9`, '--gsm-safe', '--json']), undefined);
    const sent = 'Hello, your order is ready for collection at our shop. We\'re open until 6pm today and tomorrow - bring this message... Thanks! Zo\u00e9';
    assert.deepEqual(api.requests.map((r) => r.body.body), [{ text: sent }]);
    assert.match(ctx.err(), /--gsm-safe: 3 look-alikes replaced, first "\u2026for collection at our shop\. We\u2019re open until 6pm today and t\u2026" \u2192 "\u2026for collection at our shop\. We're open until 6pm today and t\u2026"; 2 \u2192 1 part a message: 4 SMS parts saved/);
    const doc = JSON.parse(ctx.out()) as { spend: { gsmSafe: { replaced: number; partsSaved: number } } };
    assert.deepEqual([doc.spend.gsmSafe.replaced, doc.spend.gsmSafe.partsSaved], [3, 4]);
  });
});

describe('the flags, checked before anything is read', () => {
  test('a profile keeps the price file: its runs estimate and cap with it, --price-file sets it aside, a template run goes without it', async () => {
    const c = bulkFiles(3, 'msgr-cost-profile-');
    const prices = join(c.dir, 'prices.csv');
    writeFileSync(prices, 'prefix,price,currency\n+44,0.05,EUR\n');
    const env = { ...c.env, MSGR_PROFILE: 'shop' };
    assert.equal((await runInProcess(['profile', 'add', 'shop', '--api-key-stdin', '--account', 'SHOP01', '-q'], { env: c.env, input: 'shop-key-1234\n' })).code, 0);
    // Checked as --price-file checks it, and kept as an absolute path.
    const bad = join(c.dir, 'bad.csv');
    writeFileSync(bad, 'prefix,price,currency\n+44,€0.05,EUR\n');
    const refusedSet = await runInProcess(['profile', 'set', 'shop', 'price-file', bad], { env: c.env });
    assert.equal(refusedSet.code, 2);
    assert.match(refusedSet.stderr, /bad\.csv, line 2, price \(field 2\)/);
    assert.equal((await runInProcess(['profile', 'set', 'shop', 'price-file', prices, '-q'], { env: c.env })).code, 0);
    const shown = await runInProcess(['profile', 'show', 'shop', '--json'], { env: c.env });
    assert.equal((JSON.parse(shown.stdout) as { priceFile: { value: string } }).priceFile.value, prices);
    // The run estimates with it, and --max-cost caps with it.
    const argv = [c.file, '--from', 'Acme', '--text', 'Hello'];
    const ctx = fakeContext({ env, http: fakeApi().http });
    const err = await run(ctx, [...argv, '--max-cost', '0.10']);
    assert.equal(err?.message, 'the cost estimate, EUR 0.15 for 3 SMS parts, is above --max-cost EUR 0.10; nothing was sent');
    assert.match(ctx.err(), /cost estimate: EUR 0\.15 for 3 SMS parts \(prices from .*prices\.csv; an estimate, not a bill\)/);
    // A template run has no parts to price: the profile's file is not used, and nothing stops it.
    const templ = fakeContext({ env, http: fakeApi().http });
    assert.equal(await run(templ, [c.file, '--from', 'Acme', '--template', 'offer', '--dry-run']), undefined);
    assert.doesNotMatch(templ.err(), /cost estimate/);
    // `profile unset` takes it away again.
    assert.equal((await runInProcess(['profile', 'unset', 'shop', 'price-file', '-q'], { env: c.env })).code, 0);
    const after = fakeContext({ env, http: fakeApi().http });
    assert.equal(await run(after, [...argv, '--dry-run']), undefined);
    assert.doesNotMatch(after.err(), /cost estimate/);
  });

  test('--limit is refused with --preview and --sample-to; --max-cost needs --price-file and an amount; --gsm-safe and --price-file need the text', async () => {
    const c = bulkFiles(1, 'msgr-spend-flags-');
    const refused = async (argv: string[]): Promise<string> => {
      const err = await run(fakeContext({ env: c.env }), [c.file, '--from', 'Acme', ...argv]);
      assert.equal(err?.exitCode, ExitCode.USAGE, argv.join(' '));
      return err?.message ?? '';
    };
    assert.equal(await refused(['--text', 'Hi', '--limit', '5', '--preview']), '--limit and --preview cannot be used together');
    assert.equal(await refused(['--text', 'Hi', '--limit', '5', '--sample-to', '+447400123456']), '--limit and --sample-to cannot be used together');
    assert.equal(await refused(['--text', 'Hi', '--limit', '0']), '--limit: "0" is not a whole number from 1 to 1,000,000,000');
    assert.match(await refused(['--text', 'Hi', '--max-cost', '10']), /^--max-cost needs --price-file FILE/);
    assert.equal(await refused(['--text', 'Hi', '--price-file', 'p.csv', '--max-cost', 'ten euros']), '--max-cost: "ten euros" is not an amount');
    assert.match(await refused(['--template', 'offer', '--gsm-safe']), /^--gsm-safe needs the text/);
    assert.match(await refused(['--template', 'offer', '--price-file', 'p.csv']), /^--price-file needs the text/);
  });
});

describe('send --gsm-safe', () => {
  test('the text is sent with GSM-7 characters instead of its look-alikes (the dry run shows the request), and says so', async () => {
    const { Command } = await import('commander');
    const { registerSend } = await import('../../../../src/commands/send/index.js');
    const c = bulkFiles(1, 'msgr-send-gsm-');
    const ctx = fakeContext({ env: c.env });
    const program = new Command('msgr').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    registerSend(program, ctx);
    await program.parseAsync(['send', '--to', '+447400123456', '--from', 'Acme', '--text', 'It\u2019s ready \u2013 come by\u2026 Zo\u00e9', '--gsm-safe', '--dry-run'], { from: 'user' });
    assert.deepEqual((JSON.parse(ctx.out()) as { body: unknown }).body, { text: 'It\'s ready - come by... Zo\u00e9' });
    assert.match(ctx.err(), /--gsm-safe: 3 look-alikes replaced; 1 \u2192 1 SMS part a recipient/);
  });
});
