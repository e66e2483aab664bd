// The same data under another campaign key (docs/reruns.md: "The same data under another key"):
// yesterday's export saved again (CRLF, a byte-order mark, quotes, no last line end) is the same
// data, and stops today's run (exit 2, nothing sent) as the file nobody replaced does; a changed
// value is other data, and is sent.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { fakeApi } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, sendBulk } from '../../../support/in-process.js';

describe('the same data under another key', () => {
  test('the export saved again with CRLF, a BOM, quotes or no last line end stops the run (exit 2, nothing sent); a changed value does not', async () => {
    const c = bulkFiles(3, 'msgr-same-data-');
    const run = async (file: string, key: string): Promise<{ code: number; sent: number; stderr: string }> => {
      const api = fakeApi();
      const ctx = fakeContext({ env: c.env, http: api.http });
      const err = await sendBulk(ctx, [file, '--once', key, '--from', 'Clinic', '--text', 'See you tomorrow', '--again', '--yes']);
      return { code: err?.exitCode ?? 0, sent: api.requests.length, stderr: `${ctx.err()}${err !== undefined ? `error: ${err.message}` : ''}` };
    };
    const first = await run(c.file, 'day-1');
    assert.deepEqual([first.code, first.sent], [0, 1], first.stderr);
    const text = readFileSync(c.file, 'utf8');
    const saved: Array<[string, string | Buffer]> = [
      ['crlf.csv', text.replace(/\n/g, '\r\n')],
      ['bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
      ['quoted.csv', text.replace(/^(\+\d+),(N\d)$/gm, '"$1","$2"')],
      ['no-last-newline.csv', text.slice(0, -1)],
    ];
    let n = 2;
    for (const [name, data] of saved) {
      const file = join(c.dir, name);
      writeFileSync(file, data);
      const r = await run(file, `day-${n++}`);
      assert.equal(r.code, ExitCode.USAGE, `${name}: ${r.stderr}`);
      assert.equal(r.sent, 0, name);
      assert.match(r.stderr, /holds the same data as run \S+ under --once day-1/, name);
    }
    const changed = join(c.dir, 'changed.csv');
    writeFileSync(changed, text.replace('N1', 'N1b'));
    const other = await run(changed, 'day-9');
    assert.deepEqual([other.code, other.sent], [0, 1], other.stderr);
  });
});
