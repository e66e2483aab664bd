// Generated data in bench/.data/: deterministic CSVs of unique, valid mobile numbers (checked
// with libphonenumber-js/max). Row i goes to country i % 3; k = floor(i / 3) is scrambled by a
// bijection inside each range so numbers are not sequential. Capacity: 15M rows (the UK ranges
// run out first).
import { closeSync, createReadStream, existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA } from './config.mjs';
import { fmtInt, fmtMB } from './results.mjs';

const GEN_VERSION = 'v1';
const UK_PREFIXES = ['7912', '7913', '7914', '7915', '7916']; // +44 79xx xxxxxx, 10^6 each
export const NAMES = ['Ann', 'Bob', 'Chloé', 'Dev', 'Eve', 'Finn', 'Gül', 'Hana'];
const MAX_ROWS = UK_PREFIXES.length * 1e6 * 3;

export function numberFor(i) {
  const k = Math.floor(i / 3);
  switch (i % 3) {
    case 0: {
      const prefix = UK_PREFIXES[Math.floor(k / 1e6)];
      return `+44${prefix}${String(((k % 1e6) * 7919 + 12345) % 1e6).padStart(6, '0')}`;
    }
    case 1:
      return `+49151${String((k * 7919 + 4242) % 1e8).padStart(8, '0')}`;
    default:
      return `+3361${String((k * 7919 + 777) % 1e7).padStart(7, '0')}`;
  }
}

/** bench/.data/bulk-<n>.csv: header msisdn,name,code; reused when a complete one exists. */
export function csvFile(n) {
  if (n > MAX_ROWS) throw new Error(`the data generator has unique numbers for ${fmtInt(MAX_ROWS)} rows at most (asked for ${fmtInt(n)})`);
  mkdirSync(DATA, { recursive: true });
  const file = join(DATA, `bulk-${n}.csv`);
  const marker = `${file}.ok`;
  if (existsSync(file) && existsSync(marker) && readFileSync(marker, 'utf8') === `${GEN_VERSION} ${statSync(file).size}`) return file;
  const t0 = performance.now();
  // code keeps its leading zeros: a CSV reader that casts would turn 000042 into 42.
  writeLines(file, 'msisdn,name,code\n', n, (i) => `${numberFor(i)},${NAMES[i % NAMES.length]}${i},${String((i * 31337) % 1e6).padStart(6, '0')}\n`);
  writeFileSync(marker, `${GEN_VERSION} ${statSync(file).size}`);
  console.error(`bench: wrote ${file} (${fmtInt(n)} rows, ${fmtMB(statSync(file).size)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return file;
}

/** Writes `first` and then line(i) for i < n into `file`, a megabyte at a time. */
export function writeLines(file, first, n, line) {
  const fd = openSync(file, 'w');
  let s = first;
  for (let i = 0; i < n; i++) {
    s += line(i);
    if (s.length > 1e6) {
      writeSync(fd, s);
      s = '';
    }
  }
  writeSync(fd, s);
  closeSync(fd);
}

/** Reads a file once so the parse baseline and msgr both start from the page cache. */
export async function warmCache(file) {
  let bytes = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) bytes += chunk.length;
  return bytes;
}
