// `msgr runs list` off a terminal fits 80 columns (file names, short run ids, a campaign key cut in
// the middle), --wide keeps the paths, --json is unchanged. In-process; the widths of a real
// terminal are test/e2e/first-impressions.test.ts's.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_runs_list_7788';
const server = useTestServer({ reset: (s) => (s.fallback = { status: 202, body: { batchId: 'b-1', messages: [{ id: 'msg-A1', msisdn: '+447911123456' }, { id: 'msg-B2', msisdn: '+447911123457' }] } }) });

describe('msgr runs list', () => {
  test('fits 80 columns (file names, short run ids); --wide keeps the paths; --json is unchanged', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const deep = join(tempDir('msgr-runs-list-'), 'a-folder-with-a-long-name', 'another-long-folder-name', 'and-one-more');
    mkdirSync(deep, { recursive: true });
    const files = [join(deep, 'spring-campaign-customers-2026-final.csv'), join(deep, 'b.csv')];
    // Two files of other numbers: the same data twice would be a run again (--again).
    files.forEach((f, i) => writeFileSync(f, `msisdn\n+44791112345${i}\n+44791112346${i}\n`));
    for (const f of files) {
      const r = await runInProcess(['send-bulk', f, '--from', 'Acme', '--text', 'Hi', '--account', 'ACME-PRODUCTION-EUROPE-WEST', '--base-url', server.url], { env: { ...env, MSGR_API_KEY: KEY } });
      assert.equal(r.code, 0, r.stderr);
    }
    const list = await runInProcess(['runs', 'list'], { env });
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
    assert.match(lines[0] ?? '', /^RUN +STARTED +FILE +TARGET +ACCEPTED +STATE$/);
    assert.ok(!list.stdout.includes(deep), 'a path in the narrow table');
    assert.match(list.stdout, /b\.csv/);
    assert.match(list.stdout, /2 of 2 +finished/);
    // The short id is a run reference every runs command takes.
    const short = /^(\w{8}) /.exec(lines[1] ?? '')?.[1] ?? '';
    const show = await runInProcess(['runs', 'show', short], { env });
    assert.equal(show.code, 0, show.stderr);
    const wide = await runInProcess(['runs', 'list', '--wide'], { env });
    for (const f of files) assert.ok(wide.stdout.includes(f), `--wide lacks ${f}`);
    assert.match(wide.stdout, /^RUN +STARTED +FILE +TARGET +ROWS +ACCEPTED +IN DOUBT +NOT SENT +STATE$/m);
    const json = JSON.parse((await runInProcess(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ file: string; runId: string }> };
    assert.deepEqual(json.runs.map((r) => r.file).sort(), [...files].sort());
  });

  test('keyed runs show their campaign key (within 80 columns); runs without one show none', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir() });
    const file = join(tempDir('msgr-runs-keys-'), 'today.csv');
    const plain = await runInProcess(['runs', 'list'], { env });
    for (const [i, day] of ['2026-12-01', '2026-12-02'].entries()) {
      // Each day's export (the same data under another key would stop: the file not replaced).
      writeFileSync(file, `msisdn\n+44791112345${i}\n+44791112346${i}\n`);
      const r = await runInProcess(['send-bulk', file, '--sandbox', '--from', 'Clinic', '--text', 'Hi', '--account', 'CLINIC01', '--once', `reminders-${day}`, '--again', '--yes', '-q'], { env });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.doesNotMatch(plain.stdout, /KEY/);
    const list = await runInProcess(['runs', 'list'], { env });
    const lines = list.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^RUN +STARTED +FILE +KEY +TARGET +ACCEPTED +STATE$/);
    // Whole where 80 columns hold it; else cut in the middle, as a file name is: its start and its end (the day) kept.
    for (const day of ['12-01', '12-02']) assert.match(list.stdout, new RegExp(`today\\.csv +(reminders-2026-${day}|remind\\S*…\\S*${day}) +sandbox +2 of 2 +finished`));
    for (const line of lines) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
    assert.match((await runInProcess(['runs', 'list', '--wide'], { env })).stdout, /today\.csv +reminders-2026-12-02 +sandbox/);
    const json = JSON.parse((await runInProcess(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ once: string | null }> };
    assert.deepEqual(json.runs.map((r) => r.once).sort(), ['reminders-2026-12-01', 'reminders-2026-12-02']);
    assert.match((await runInProcess(['runs', 'list', '--wide'], { env })).stdout, /^RUN +STARTED +FILE +KEY +TARGET/m);
  });
});
