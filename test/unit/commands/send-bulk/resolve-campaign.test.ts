// argv → the campaign the engine takes (src/commands/send-bulk/resolve-campaign.ts): each flag lands where
// the engine reads it, the modes are named once, and the commands msgr prints for people to run
// next are made from the command line as given.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { realRunCommand, resolveCampaign, restartCommand } from '../../../../src/commands/send-bulk/resolve-campaign.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkOptions } from '../../../support/in-process.js';

const env = { MSGR_API_KEY: 'fake-key-0123456789', MSGR_BASE_URL: 'https://api.example.test/eu', MSGR_ACCOUNT_REFERENCE: 'ACME01', MSGR_CONFIG_DIR: '/nonexistent/msgr-state' };

async function campaign(argv: string[]): ReturnType<typeof resolveCampaign> {
  const ctx = { ...fakeContext({ env }), cwd: '/srv/lists', argv: ['send-bulk', ...argv] };
  return resolveCampaign(ctx, await bulkOptions(argv));
}

describe('the campaign', () => {
  test('what to send, to whom, where, how fast: grouped, paths made absolute from the working folder', async () => {
    const c = await campaign(['list.csv', '--from', 'Acme', '--text', 'Hi {{name}}', '--no-render', '--exclude', 'optouts.csv', '--exclude-column', 'Phone', '--report', 'out/report.csv', '--batch-size', '50', '--rate', '300/m', '--no-header']);
    assert.equal(c.input.file, 'list.csv');
    assert.deepEqual(c.input.exclude, { given: 'optouts.csv', path: '/srv/lists/optouts.csv', column: 'Phone' });
    assert.deepEqual(c.output.report, { given: 'out/report.csv', path: '/srv/lists/out/report.csv' });
    // --no-header names the number column 1 and sends no column as a variable.
    assert.deepEqual(c.input.columns, { msisdn: '1', vars: [], meta: undefined, headerRow: false });
    assert.deepEqual([c.message.from, c.message.text, c.message.render], ['Acme', 'Hi {{name}}', false]);
    assert.deepEqual([c.pace.batchSize, c.pace.concurrency, c.pace.rate?.text], [50, 4, '300/m']);
    assert.deepEqual(c.where.place, { sandbox: false, baseUrl: 'https://api.example.test/eu', account: 'ACME01' });
    assert.equal(c.where.settings.apiKey.value, 'fake-key-0123456789');
  });

  test('what this command does: send, a dry run, a preview of n rows, a sample to numbers', async () => {
    assert.deepEqual((await campaign(['a.csv', '--text', 'x'])).purpose, { kind: 'send' });
    assert.deepEqual((await campaign(['a.csv', '--text', 'x', '--dry-run'])).purpose, { kind: 'dry-run' });
    assert.deepEqual((await campaign(['a.csv', '--text', 'x', '--preview', '3'])).purpose, { kind: 'preview', rows: 3 });
    assert.deepEqual((await campaign(['a.csv', '--text', 'x', '--sample-to', '+447911123456', '--sample', '2'])).purpose, { kind: 'sample', to: ['+447911123456'], rows: 2 });
  });

  test('what to do with earlier runs: the request, and --skip-sent alone apart from the runs it names', async () => {
    assert.equal((await campaign(['a.csv', '--resume'])).earlier.request, 'resume');
    assert.equal((await campaign(['a.csv', '--text', 'x', '--restart', '--include-sent'])).earlier.request, 'restart');
    const c = await campaign(['a.csv', '--text', 'x', '--skip-sent', '--skip-sent', '20261121T161500Z-3fa9c2d1', '--once', 'spring']);
    assert.deepEqual(c.earlier.skipSent, { runs: ['20261121T161500Z-3fa9c2d1'], same: true });
    assert.deepEqual([c.earlier.request, c.earlier.once, c.earlier.again], ['new', 'spring', false]);
    assert.equal((await campaign(['a.csv', '--text', 'x'])).earlier.skipSent, undefined);
  });

  test('a resume command repeats the flags a journal does not keep; the sample names the campaign\'s own command', async () => {
    const c = await campaign(['my list.csv', '--text', 'Hi', '--concurrency', '8', '--report', 'r.csv', '--yes', '--sample-to', '+447911123456']);
    assert.deepEqual(c.resumeWith, { file: 'my list.csv', profile: undefined, baseUrl: undefined, account: undefined, apiKeyFile: undefined, caFile: undefined, sandbox: false, concurrency: 8, rate: undefined, report: 'r.csv', yes: true, journal: undefined, once: undefined });
    assert.equal(c.rerun.campaign, "msgr send-bulk 'my list.csv' --text Hi --concurrency 8 --report r.csv --yes");
    assert.equal(c.rerun.resume, "msgr send-bulk 'my list.csv' --text Hi --concurrency 8 --report r.csv --yes --resume");
    // The base URL came from MSGR_BASE_URL: the fix is made there.
    assert.equal(c.rerun.baseUrlFixed, "MSGR_BASE_URL=URL msgr send-bulk 'my list.csv' --text Hi --concurrency 8 --report r.csv --yes --sample-to +447911123456 --restart");
    assert.equal(join(c.output.report?.path ?? ''), '/srv/lists/r.csv');
  });
});

test('realRunCommand: this command without the sample\'s flags, in either spelling', () => {
  assert.equal(realRunCommand(['send-bulk', 'a.csv', '--sample-to', '+1', '--text', 'Hi {{x}}', '--sample=2', '--sample-to=+2', '--sample', '3']), "msgr send-bulk a.csv --text 'Hi {{x}}'");
});

test('restartCommand: this command with --restart, the base URL set to URL where it was given; none for a resume', () => {
  const argv = ['send-bulk', 'my list.csv', '--text', 'Hi there', '--base-url', 'https://api.example.com/eu', '--yes'];
  assert.equal(restartCommand(argv, { source: 'flag', origin: '--base-url' }), "msgr send-bulk 'my list.csv' --text 'Hi there' --base-url URL --yes --restart");
  assert.equal(restartCommand(['send-bulk', 'a.csv', '--base-url=https://x', '--restart'], { source: 'flag' }), 'msgr send-bulk a.csv --base-url=URL --restart');
  assert.equal(restartCommand(['send-bulk', 'a.csv', '--text', 'x', '--', '-'], { source: 'env', origin: 'MSGR_BASE_URL' }), 'MSGR_BASE_URL=URL msgr send-bulk a.csv --text x --restart -- -');
  assert.equal(restartCommand(['send-bulk', 'a.csv'], { source: 'profile', origin: 'prod eu' }), "msgr profile set 'prod eu' base-url URL && msgr send-bulk a.csv --restart");
  assert.equal(restartCommand(['send-bulk', 'a.csv', '--resume'], { source: 'flag' }), undefined);
});
