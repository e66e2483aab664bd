// Every file of the shared CSV corpus (../shared/corpora/csv, read where it is, never copied)
// either parses or fails with a clear message and a line number: never a crash, an internal
// error or a stack trace. The whole CLI runs in-process (test/support/in-process.ts) as a dry
// run, with the first header as the number column so every row is read and checked.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { detectFormat, readCsv } from '../../../src/csv/reader.js';
import { ROOT, tempDir } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';

const CORPUS = join(ROOT, '..', 'shared', 'corpora', 'csv');

function list(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return list(p);
    return name.startsWith('.') ? [] : [p];
  });
}

/** The first header name, as send-bulk would read it, or undefined when there is none. */
async function firstHeader(path: string): Promise<string | undefined> {
  try {
    const format = await detectFormat(path, {});
    let first: string | undefined;
    await readCsv(path, {
      format,
      onHeader: (h) => {
        first = h[0];
        throw new Error('stop');
      },
      onRecord: () => undefined,
    });
    return first;
  } catch {
    return undefined;
  }
}

describe('the shared CSV corpus', { skip: existsSync(CORPUS) ? false : `no corpus at ${CORPUS} (../shared is absent)` }, () => {
  const files = existsSync(CORPUS) ? list(CORPUS) : [];

  test('the corpus is there', () => {
    assert.ok(files.length > 20, `${files.length} files`);
  });

  for (const file of files) {
    test(file.slice(CORPUS.length + 1), async () => {
      const header = await firstHeader(file);
      const args = ['send-bulk', file, '--from', 'Acme', '--text', 'hi', '--dry-run', ...(header !== undefined ? ['--msisdn-column', header.trim()] : [])];
      // Dry runs: nothing may ask for an API client.
      const r = await runInProcess(args, { env: { MSGR_CONFIG_DIR: tempDir('msgr-corpus-'), NO_COLOR: '1', MSGR_ACCOUNT_REFERENCE: 'ACME01' }, http: null });
      assert.ok(r.code === 0 || r.code === 2, `exit ${r.code}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at .+:\d+:\d+/);
      if (r.code === 2) {
        // A clear message: what is wrong, and where.
        assert.match(r.stderr, /error: .*(line \d+|is empty|no column|no number column|more than one column)/s, r.stderr);
      } else {
        assert.match(r.stderr, /preflight: .*\d+ rows?/);
      }
    });
  }
});
