// The opt-out store under two processes writing at once (the other opt-out rules are proved
// in-process: test/unit/commands/listen/opt-outs-from-replies.test.ts,
// test/unit/commands/optout/add-remove-import-export.test.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../support/cli.js';

describe('opt-outs', () => {
  test('two processes adding at once lose none', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const files = ['a', 'b'].map((name, f) => {
      const path = join(dir, `${name}.txt`);
      writeFileSync(path, Array.from({ length: 300 }, (_, i) => `+4477009${f}${String(i).padStart(4, '0')}\n`).join(''));
      return path;
    });
    const run = (args: string[]): Promise<number | null> => new Promise((r) => spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: 'ignore' }).on('close', r));
    // Two imports and a stream of single adds, all at once.
    const singles = async (): Promise<Array<number | null>> => {
      const codes: Array<number | null> = [];
      for (let i = 0; i < 5; i++) codes.push(await run(['optout', 'add', '--account', 'ACME', `+44770090900${i}`]));
      return codes;
    };
    const [a, b, s] = await Promise.all([run(['optout', 'import', files[0] ?? '', '--account', 'ACME']), run(['optout', 'import', files[1] ?? '', '--account', 'ACME']), singles()]);
    assert.deepEqual([a, b, ...s], [0, 0, 0, 0, 0, 0, 0]);
    const exported = (await runCli(['optout', 'export', '--account', 'ACME'], { env })).stdout.trim().split('\n');
    assert.equal(exported.length, 605);
    assert.equal(new Set(exported).size, 605);
  });
});
