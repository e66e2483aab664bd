// send-bulk of a big input starts itself again in the same process before it reads anything
// (execve, where Node has it: src/commands/send-bulk/heap.ts), with a smaller young generation
// and malloc's trim threshold fixed. What a user and a supervisor see must not change: the same
// process id, arguments, stdin and environment, signals and resumes as ever. A preload given
// through NODE_OPTIONS writes down each start of Node; stdin from a pipe is started again whatever
// its size, so these tests pipe their CSV. On Node 20 (no execve) each run starts once, unchanged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EXE, msgrCommand, offeredCommand, ROOT, tempDir, type RunResult } from '../support/cli.js';
import { assertExactlyOnce, env, MSG, numbersCsv, recipients, sandbox } from '../support/bulk-inputs.js';
import { waitFor } from '../support/daemon.js';

const reexecs = typeof (process as { execve?: unknown }).execve === 'function';
const LOADER = '/lib64/ld-linux-x86-64.so.2';

interface Start {
  pid: number;
  execArgv: string[];
  argv: string[];
  trim: string | null;
  arena: string | null;
}

/** An environment whose every Node start appends a line to the returned file. */
function recordingStarts(base: Record<string, string>, nodeOptions = ''): { e: Record<string, string>; starts: () => Start[] } {
  const dir = tempDir();
  const preload = join(dir, 'starts.cjs');
  const log = join(dir, 'starts.jsonl');
  writeFileSync(preload, `require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv, argv: process.argv.slice(2), trim: process.env.MALLOC_TRIM_THRESHOLD_ ?? null, arena: process.env.MALLOC_ARENA_MAX ?? null }) + '\\n');\n`);
  return {
    e: { ...base, NODE_OPTIONS: `${nodeOptions} --require ${preload}`.trim() },
    starts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Start) : []),
  };
}

/** `msgr send-bulk ...args`, the CSV piped to its stdin; the test can signal it. */
function startBulk(args: string[], e: Record<string, string>, input?: string): { child: ReturnType<typeof spawn>; done: Promise<RunResult> } {
  const child = spawn(...msgrCommand(['send-bulk', ...args]), { cwd: ROOT, env: e, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin?.end(input);
  const done = new Promise<RunResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

describe('send-bulk started again for its memory', { skip: EXE !== undefined ? 'the single executable file is not started again (no Node flags pass through it)' : false }, () => {
  test('a CSV on stdin: every row sent once; Node 24 and later start once more in the same process, with the same arguments and stdin, the heap flag and the trim threshold', async () => {
    const { server, record } = await sandbox();
    try {
      const { path, numbers } = numbersCsv(30);
      const { e, starts } = recordingStarts(env(server.url));
      const args = ['-', ...MSG, '--batch-size', '7', '--yes', '--verbose'];
      const run = startBulk(args, e, readFileSync(path, 'utf8'));
      const r = await run.done;
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /ok: 30 of 30 recipients accepted/);
      assertExactlyOnce(record, numbers);
      // --verbose says so, once, before the new start.
      const said = r.stderr.match(/^starting msgr again in this process with --max-semi-space-size=2 and MALLOC_TRIM_THRESHOLD_=131072, for a big send's memory$/gm) ?? [];
      assert.equal(said.length, reexecs ? 1 : 0, r.stderr);
      const seen = starts();
      assert.equal(seen.length, reexecs ? 2 : 1, JSON.stringify(seen));
      for (const s of seen) {
        assert.equal(s.pid, run.child.pid);
        assert.deepEqual(s.argv, ['send-bulk', ...args]);
      }
      assert.deepEqual(seen.map((s) => [s.execArgv, s.trim]), reexecs ? [[[], null], [['--max-semi-space-size=2'], '131072']] : [[[], null]]);
    } finally {
      await server.close();
    }
  });

  test('a small file and a dry run are not started again; the user\'s own --max-semi-space-size is kept and not started again for; their malloc settings are kept', async () => {
    const { server } = await sandbox();
    try {
      const { path } = numbersCsv(3);
      const small = recordingStarts(env(server.url));
      const r1 = await startBulk([path, ...MSG, '--yes'], small.e).done;
      assert.equal(r1.code, 0, r1.stderr);
      assert.equal(small.starts().length, 1);

      // A dry run's peak is in the preflight, which starting again does not lower: it is not started again.
      const dry = recordingStarts(env(server.url));
      const r0 = await startBulk(['-', ...MSG, '--dry-run'], dry.e, readFileSync(path, 'utf8')).done;
      assert.equal(r0.code, 0, r0.stderr);
      assert.match(r0.stderr, /to send: 3 recipients/);
      assert.equal(dry.starts().length, 1);

      // stdin from a small file (`< list.csv`): its size is known, and it is not started again.
      const redirected = recordingStarts(env(server.url));
      const child = spawn(...msgrCommand(['send-bulk', '-', ...MSG, '--yes', '--again']), { cwd: ROOT, env: redirected.e, stdio: [openSync(path, 'r'), 'ignore', 'pipe'] });
      let errText = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => (errText += d));
      assert.equal(await new Promise((resolve) => child.on('close', resolve)), 0, errText);
      assert.equal(redirected.starts().length, 1);

      const own = recordingStarts(env(server.url), '--max-semi-space-size=16');
      const r2 = await startBulk(['-', ...MSG, '--yes'], own.e, readFileSync(path, 'utf8')).done;
      assert.equal(r2.code, 0, r2.stderr);
      assert.deepEqual(own.starts().map((s) => s.trim), [null]);

      const arena = recordingStarts(env(server.url, { MALLOC_ARENA_MAX: '2' }));
      const r3 = await startBulk(['-', ...MSG, '--yes', '--again'], arena.e, readFileSync(path, 'utf8')).done;
      assert.equal(r3.code, 0, r3.stderr);
      assert.deepEqual(arena.starts().map((s) => [s.execArgv, s.trim, s.arena]), reexecs ? [[[], null, '2'], [['--max-semi-space-size=2'], null, '2']] : [[[], null, '2']]);
    } finally {
      await server.close();
    }
  });

  test('Node started through the dynamic loader, and a quoted flag in NODE_OPTIONS: not started again, every row sent once', { skip: !existsSync(LOADER) ? `no ${LOADER} here` : false }, async () => {
    const { server, record } = await sandbox();
    try {
      const { path, numbers } = numbersCsv(5);
      // Node reports the loader as its own path: started again, the loader would take Node's flags as its own.
      const loaded = recordingStarts(env(server.url));
      const [node, nodeArgs] = msgrCommand(['send-bulk', '-', ...MSG, '--yes']);
      const child = spawn(LOADER, [node, ...nodeArgs], { cwd: ROOT, env: loaded.e, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.stdout.resume();
      child.stdin.end(readFileSync(path, 'utf8'));
      const code = await new Promise((resolve) => child.on('close', resolve));
      assert.equal(code, 0, stderr);
      assert.match(stderr, /ok: 5 of 5 recipients accepted/);
      assert.deepEqual(loaded.starts().map((s) => s.execArgv), [[]]);
      assertExactlyOnce(record, numbers);

      // Node's own quoting of NODE_OPTIONS: the user's setting, so msgr's is not added.
      const quoted = recordingStarts(env(server.url), '"--max-semi-space-size=16"');
      const r = await startBulk(['-', ...MSG, '--yes', '--again'], quoted.e, readFileSync(path, 'utf8')).done;
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(quoted.starts().map((s) => s.trim), [null]);
    } finally {
      await server.close();
    }
  });

  test('Ctrl-C after the start again reaches the run (same pid): in-flight batches finish, exit 130; the resume it prints sends the rest, each row once', async () => {
    const { server, record } = await sandbox({ latencyMs: 80 });
    try {
      const { path, numbers } = numbersCsv(60);
      const config = tempDir();
      const { e, starts } = recordingStarts(env(server.url, {}, config));
      const run = startBulk(['-', ...MSG, '--batch-size', '2', '--concurrency', '2', '--yes'], e, readFileSync(path, 'utf8'));
      await waitFor('the first request at the sandbox', () => recipients(record).length > 0);
      run.child.kill('SIGINT');
      const r = await run.done;
      assert.equal(r.code, 130, r.stderr);
      assert.equal(starts().length, reexecs ? 2 : 1);
      const [command, ...resume] = offeredCommand(r.stderr, 'Resume with: ');
      assert.equal(command, 'send-bulk', r.stderr);
      const sent = recipients(record).length;
      assert.ok(sent > 0 && sent < 60, `sent ${sent}`);
      // The resume reads the copy of stdin the run kept (no stdin now), in one start: it names no file.
      const again = await startBulk(resume, e).done;
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, new RegExp(`60 of 60 recipients accepted \\(${sent} before this resume\\)`));
      assertExactlyOnce(record, numbers);
    } finally {
      await server.close();
    }
  });
});
