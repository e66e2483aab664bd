// The command that continues a run, as printed in hints and summaries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildResumeCommand } from '../../../../src/bulk/this-run/resume-command.js';

test('buildResumeCommand repeats what the journal does not keep, quoted for a shell', () => {
  const flags = { file: 'my list.csv', sandbox: false, concurrency: 8, yes: true, profile: 'prod', report: 'out.csv', rate: { perMs: 0.1, text: '100/s' } };
  assert.equal(buildResumeCommand(flags, '/data/my list.csv', false, '/state/j.jsonl'), "msgr send-bulk 'my list.csv' --resume -p prod --concurrency 8 --rate 100/s --report out.csv --yes");
  assert.equal(buildResumeCommand({ file: '-', sandbox: true, concurrency: 4, yes: false }, undefined, true, '/state/j.jsonl'), 'msgr send-bulk --resume --journal /state/j.jsonl --sandbox');
});
