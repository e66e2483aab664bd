// `msgr listen`'s files under an operator's hands (docs/events.md: "Rotating the events file",
// "The events file"): the events file moved and removed while events stream in, SIGHUP, a folder
// it may not write as another user; and the webhook URL kept out of argv (read from the process's
// environment, and not in ps). Loose modes and a last line without its newline are proved
// in-process: test/unit/commands/listen/files-as-found.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, msgrCommand, runCli, tempDir } from '../support/cli.js';
import { eventIds } from '../support/files.js';
import { LISTENING, SANDBOX_URL, startMsgr, waitFor } from '../support/daemon.js';
import { useTestServer } from '../support/test-server.js';

const TOKEN = 'e2e-files-token-0123456789';

describe('msgr listen and its files', () => {
  const app = useTestServer({ reset: (s) => (s.fallback = { status: 200 }) });

  test('mv and rm of the events file while events stream in, and SIGHUP: every acknowledged event is in the file the path named when it was answered', async (t) => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir, MSGR_LISTEN_TOKEN: TOKEN });
    const out = join(dir, 'events.jsonl');
    const daemon = await startMsgr(['listen', '--port', '0', '--out', out, '--forward-to', `${app.url}/app`], env, LISTENING);
    const url = daemon.ready;
    // What the path names over time: the test's own record of its moves, each at a known moment.
    const phases: Array<{ at: number; file: string | undefined }> = [{ at: 0, file: `${out}.1` }];
    const acked: Array<{ id: string; start: number; end: number }> = [];
    let n = 0;
    let stop = false;
    const stream = async (): Promise<void> => {
      while (!stop) {
        const id = `r${n++}`;
        const start = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, status: 'delivered', messageId: `m-${id}` }) });
        if (res.status === 200) acked.push({ id, start, end: performance.now() });
        else assert.fail(`${id} answered ${res.status}: ${await res.text()}`);
      }
    };
    const streams = Array.from({ length: 8 }, stream);
    t.after(() => daemon.stop('SIGKILL'));
    try {
      const more = async (what: string): Promise<void> => {
        const from = acked.length;
        await waitFor(what, () => acked.length >= from + 80, 30_000);
      };
      await more('events flowing');
      // logrotate without a signal: mv. The file at the path now is made by the listener.
      renameSync(out, `${out}.1`);
      phases.push({ at: performance.now(), file: `${out}.2` });
      await more('events after the mv');
      // Someone deletes it: the events answered into it are gone with it, by their hand.
      rmSync(out);
      phases.push({ at: performance.now(), file: `${out}.3` });
      await more('events after the rm');
      // logrotate's create mode with a postrotate kill -HUP.
      renameSync(out, `${out}.3`);
      try {
        // As logrotate's create makes it: never over a file the listener made meanwhile.
        writeFileSync(out, '', { mode: 0o600, flag: 'wx' });
      } catch {
        // The listener's own, made at its first flush after the move: the same file for it.
      }
      daemon.child.kill('SIGHUP');
      phases.push({ at: performance.now(), file: out });
      await more('events after the SIGHUP');
    } finally {
      stop = true;
      await Promise.all(streams);
    }
    // The file that became .2 was deleted: what it held is checked only where another file must hold it.
    const held = new Map<string, Set<string>>([`${out}.1`, `${out}.3`, out].map((f) => [f, eventIds(f)]));
    const missing: string[] = [];
    let checked = 0;
    for (const a of acked) {
      // The files the path named at some moment while the request was in flight: the listener
      // answered at one of them.
      const files = phases.filter((p, i) => (phases[i + 1]?.at ?? Infinity) > a.start && p.at < a.end).map((p) => p.file);
      if (files.some((f) => f !== undefined && held.get(f)?.has(a.id) === true)) {
        checked++;
        continue;
      }
      // Answered while the path named the file the test then removed: gone with it.
      if (!files.includes(`${out}.2`)) missing.push(`${a.id} (in flight while the path named ${files.join(', ')})`);
    }
    assert.ok(checked >= 200, `only ${checked} events checked`);
    assert.deepEqual(missing, [], `acknowledged, and not in the file the path named: ${missing.slice(0, 5).join('; ')}`);
    assert.ok((held.get(out)?.size ?? 0) > 0, 'events after the SIGHUP are in the new file');
    // Forwarding followed the file through its moves: every event kept reaches the app.
    const kept = [...held.values()].flatMap((set) => [...set]);
    const forwarded = (): Set<string> => new Set(app.requests.map((r) => (JSON.parse(r.body) as { id: string }).id));
    await waitFor('every kept event at the app', () => kept.every((id) => forwarded().has(id)), 60_000).catch(() => undefined);
    const notForwarded = kept.filter((id) => !forwarded().has(id));
    assert.deepEqual(notForwarded.slice(0, 5), [], `${notForwarded.length} events kept but not forwarded`);
    assert.equal(await daemon.stop(), 0);
    const err = daemon.stderr();
    const warnings = err.split('\n').filter((l) => l.startsWith('warning:'));
    assert.equal(warnings.length, 1, `one warning for the moves no signal announced: ${warnings.join('\n')}`);
    assert.match(warnings[0] ?? '', /events\.jsonl was (removed|moved or replaced) while msgr listen was writing it; it writes to a new file at that path, so every event it acknowledges is there\. After rotating the file, send msgr listen SIGHUP/);
    // The SIGHUP found the path moved, unless a flush had just found it so.
    assert.match(err, /SIGHUP: (opened .*events\.jsonl again|.*events\.jsonl is still the file being written)/);
  });

  test('an --out folder the user cannot write: exit 2, naming the folder, as a non-root user', (t) => {
    const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync);
    const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);
    if (process.getuid?.() !== 0 || (runuser === undefined && setpriv === undefined)) {
      t.skip(process.getuid?.() !== 0 ? 'not running as root: the test user itself may write where it runs; covered when the suite runs as root' : 'neither runuser nor setpriv here to run msgr as another user');
      return;
    }
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const locked = join(dir, 'root-only');
    mkdirSync(locked, { mode: 0o755 });
    const [command, args] = msgrCommand(['listen', '--port', '0', '--out', join(locked, 'events.jsonl')]);
    const as = runuser !== undefined ? [runuser, '-u', 'nobody', '--'] : [setpriv as string, '--reuid=65534', '--regid=65534', '--clear-groups', '--'];
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state-of-nobody'), MSGR_LISTEN_TOKEN: TOKEN, HOME: dir });
    const [, versionArgs] = msgrCommand(['--version']);
    const probe = spawnSync(as[0] as string, [...as.slice(1), command, ...versionArgs], { env, encoding: 'utf8' });
    if (probe.status !== 0) {
      t.skip(`msgr cannot run as nobody here (${(probe.stderr || probe.stdout).trim().split('\n')[0] ?? ''}): the checkout is not readable by that user`);
      return;
    }
    const r = spawnSync(as[0] as string, [...as.slice(1), command, ...args], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`error: cannot write the events file in ${locked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: permission denied \\(EACCES\\)`));
    assert.doesNotMatch(r.stderr, /bug in msgr/);
    // A folder it would have to make under one it cannot write: the same.
    const [, deeperArgs] = msgrCommand(['listen', '--port', '0', '--out', join(locked, 'sub', 'events.jsonl')]);
    const deeper = spawnSync(as[0] as string, [...as.slice(1), command, ...deeperArgs], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(deeper.status, 2, deeper.stderr);
    assert.match(deeper.stderr, /cannot create the folder .*root-only\/sub \(permission denied, EACCES\); the listener did not start\nhint: Give --out a file/);
    assert.doesNotMatch(deeper.stderr, /nothing was sent|--journal/);
    // No --out: the state folder (its token, its events) under one it cannot write: the same, said as a listener's.
    const [, stateArgs] = msgrCommand(['listen', '--port', '0']);
    const state = spawnSync(as[0] as string, [...as.slice(1), command, ...stateArgs], { env: { ...env, MSGR_CONFIG_DIR: join(locked, 'state') }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(state.status, 2, state.stderr);
    assert.match(state.stderr, /^error: cannot create the folder .*root-only\/state\S* \(permission denied, EACCES\); the listener did not start\nhint: Give --out a file in a folder you can write to \(and --token, or MSGR_LISTEN_TOKEN, a token\), or point MSGR_CONFIG_DIR at a writable folder\.$/m);
    assert.doesNotMatch(state.stderr, /nothing was sent|--journal|bug in msgr/);
  });

  test('the webhook URL without argv: MSGR_WEBHOOK_URL for the sandbox, send --sandbox and trigger; the token never in ps', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: dir });
    const listen = await startMsgr(['listen', '--port', '0'], env, LISTENING);
    const url = listen.ready;
    const token = url.slice(url.lastIndexOf('/') + 1);
    try {
      const withUrl = { ...env, MSGR_WEBHOOK_URL: url };
      const sbx = await startMsgr(['sandbox', '--port', '0', '--event-delay', '20'], withUrl, SANDBOX_URL);
      try {
        const cmdline = readFileSync(`/proc/${sbx.child.pid ?? 0}/cmdline`, 'utf8');
        assert.ok(!cmdline.includes(token), 'the token is in the sandbox\'s command line');
        const r = await fetch(`${sbx.ready}/v2/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify({ accountReference: 'EX1', channel: 'SMS', from: 'Acme', body: { text: 'Hi' }, recipients: [{ msisdn: '+447911123456' }] }) });
        assert.equal(r.status, 202);
        await waitFor('the sandbox\'s receipt', () => /delivered\s+\+447911123456/.test(listen.stdout()));
        assert.match(sbx.stderr(), /events: posted to http:\/\/127\.0\.0\.1:\d+\/… /);
      } finally {
        await sbx.stop();
      }
      const send = await runCli(['send', '--sandbox', '--to', '+447911123457', '--from', 'Acme', '--text', 'Hi'], { env: withUrl });
      assert.equal(send.code, 0, send.stderr);
      assert.match(send.stderr, /sandbox: 1 delivery event posted to the webhook URL/);
      // A real send ignores it (it has no events to post), and says nothing of it.
      const trig = await runCli(['trigger', 'inbound', '--number', '+447911123458', '--text', 'Hello'], { env: withUrl });
      assert.equal(trig.code, 0, trig.stderr);
      assert.match(trig.stderr, /taken by http:\/\/127\.0\.0\.1:\d+\/… \(HTTP 200\)/);
      await waitFor('the trigger\'s reply', () => /inbound\s+\+447911123458/.test(listen.stdout()));
    } finally {
      await listen.stop();
    }
    assert.ok(!listen.stdout().includes(token));
  });
});
