// History for the history section: state folders in bench/.data/history/ holding what years of use
// leave behind, made once and reused (a marker file says a folder is complete):
//   optouts-<n>/   an opt-out store of n numbers for the account the bench sends for, written as
//                  msgr writes it (one JSON line per change); 100 of them are rows of the bench's
//                  1,000-row file, so a run over it leaves exactly 100 rows out
//   keys-<n>/      n campaign keys used by `msgr send --once` (once/<key>-<id>.json, each a
//                  record of one accepted message), as a webhook handler keyed by order id leaves
//   runs-<n>/      n finished bulk runs of other files (runs/<file>-<hash>/journal.jsonl, a header,
//                  one batch sent and its answer)
// What they hold follows docs/files.md and docs/optouts.md; a file format that changes makes a
// new GEN_VERSION here.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ACCOUNT, DATA } from './config.mjs';
import { numberFor, writeLines } from './data.mjs';
import { fmtInt } from './results.mjs';

const GEN_VERSION = 'v1';
export const HISTORY = join(DATA, 'history');
/** The base URL the history's keys and runs were sent to (send --once's place is its account and API). */
export const HISTORY_BASE_URL = 'https://api.example.test';
/** The rows of the history's CSV that are in its opt-out stores: every tenth. */
export const SUPPRESSED_ROWS = 100;
const ROWS = 1000;

function made(dir, build) {
  const marker = join(dir, '.bench-complete');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === GEN_VERSION) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const t0 = performance.now();
  build(dir);
  writeFileSync(marker, GEN_VERSION);
  console.error(`bench: made ${dir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return dir;
}

/** A state folder with nothing in it. */
export function emptyState() {
  return made(join(HISTORY, 'empty'), () => {});
}

/** The history's CSV: 1,000 rows (msisdn,name,code) of the bench's numbers. */
export function historyCsv() {
  const file = join(HISTORY, `rows-${ROWS}.csv`);
  if (!existsSync(file)) {
    mkdirSync(HISTORY, { recursive: true });
    writeLines(file, 'msisdn,name,code\n', ROWS, (i) => `${numberFor(i)},Ann${i},${String(i).padStart(6, '0')}\n`);
  }
  return file;
}

/** A state folder whose account store has n opted-out numbers (every tenth row of historyCsv among them). */
export function optOutState(n) {
  return made(join(HISTORY, `optouts-${n}`), (dir) => {
    mkdirSync(join(dir, 'optouts'), { mode: 0o700 });
    const at = '2026-01-01T09:00:00.000Z';
    const record = (number) => `{"v":1,"op":"add","number":"${number}","at":"${at}","reason":"opt-out","source":"import","evidence":{"file":"unsubscribed.csv"},"by":"msgr optout import"}\n`;
    // Rows 0, 10, 20, … of the CSV, then numbers no row has (the bench's numbers from 5,000,000 on).
    writeLines(join(dir, 'optouts', `${ACCOUNT}.jsonl`), '', n, (i) => record(i < SUPPRESSED_ROWS ? numberFor(i * 10) : numberFor(5_000_000 + i)));
  });
}

/** send --once's file name for a key (src/once/keys.ts: keyName), for the history's place. */
function keyFile(key) {
  const id = createHash('sha256').update(`msgr campaign key v1\0${HISTORY_BASE_URL}\0${ACCOUNT}\0${key}`).digest('hex').slice(0, 16);
  return `${key.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40)}-${id}.json`;
}

/** A state folder with n campaign keys used by `send --once` (`order-0` … `order-<n-1>`). */
export function keyState(n) {
  return made(join(HISTORY, `keys-${n}`), (dir) => {
    const once = join(dir, 'once');
    mkdirSync(once, { mode: 0o700 });
    for (let i = 0; i < n; i++) {
      const key = `order-${i}`;
      const rec = { type: 'once-send', version: 1, key, createdAt: '2026-01-01T09:00:00.000Z', idempotencyKey: `msgr-once-${keyFile(key).slice(0, -5)}`, request: { accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text: `Order ${i} has shipped` }, recipients: [{ msisdn: numberFor(i) }] }, attempts: [{ at: '2026-01-01T09:00:00.200Z', outcome: 'accepted', status: 202, body: { batchId: `b_${i}`, status: 'accepted', messages: [{ id: `m_${i}`, msisdn: numberFor(i) }] } }] };
      writeFileSync(join(once, keyFile(key)), `${JSON.stringify(rec)}\n`, { mode: 0o600 });
      if (i % 100_000 === 99_999) console.error(`bench: ${fmtInt(i + 1)} of ${fmtInt(n)} keys`);
    }
  });
}

/** A state folder with n finished bulk runs of other files, each one batch of one recipient. */
export function runState(n) {
  return made(join(HISTORY, `runs-${n}`), (dir) => {
    const runs = join(dir, 'runs');
    mkdirSync(runs, { mode: 0o700 });
    for (let i = 0; i < n; i++) {
      const h = createHash('sha256').update(`bench run ${i}`).digest('hex');
      const runId = `20260101T090000Z-${h.slice(0, 8)}`;
      const path = `/srv/exports/export-${i}.csv`;
      const header = { type: 'run', version: 1, runId, createdAt: '2026-01-01T09:00:00.000Z', msgr: '0.1.0', input: { path, stdin: false, size: 40 + i, mtimeMs: 1767258000000, quickHash: h, hash: h }, shape: { batchSize: 1000, encoding: 'utf8', delimiter: ',', msisdnColumn: 'msisdn', varColumns: ['name'], metaColumns: [], defaultCountry: null, allowDuplicates: false, skipInvalid: false, exclude: null, personal: { render: true, textColumn: null, fromColumn: null, maxParts: null } }, message: { accountReference: ACCOUNT, channel: 'SMS', from: 'Acme', body: { text: 'Hi {{name}}' } }, totals: { rows: 1, toSend: 1, requests: 1 }, target: { baseUrl: HISTORY_BASE_URL, account: ACCOUNT, profile: null, sandbox: false, keyFingerprint: 'ddb3af45cddb' }, optOuts: { store: 'left-out', numbers: 0, suppressed: 0 } };
      const lines = [
        header,
        { type: 'boot', id: '00000000-0000-4000-8000-000000000000' },
        { type: 'send', batch: 0, first: 0, count: 1, key: `msgr-${runId}-0`, lines: [2], numbers: [numberFor(i)], at: '2026-01-01T09:00:01.000Z' },
        { type: 'out', batch: 0 },
        { type: 'done', batch: 0, outcome: 'accepted', status: 202, ids: [`m_${i}`], at: '2026-01-01T09:00:01.100Z' },
        { type: 'stop', reason: 'finished', at: '2026-01-01T09:00:01.100Z' },
      ];
      const folder = join(runs, `export-${i}.csv-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`);
      mkdirSync(folder, { mode: 0o700 });
      writeFileSync(join(folder, 'journal.jsonl'), lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
      if (i % 100_000 === 99_999) console.error(`bench: ${fmtInt(i + 1)} of ${fmtInt(n)} runs`);
    }
  });
}
