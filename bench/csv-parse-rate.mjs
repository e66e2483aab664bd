// Baseline for bulk throughput: csv-parse's raw parse rate of a file, object rows (columns:
// true), streaming, nothing else done per row. Runs in its own process so it has a core and a
// heap to itself, like `msgr send-bulk` does. Prints one JSON line: {records, ms, rate}.
// Usage: node bench/csv-parse-rate.mjs <file.csv>
import { createReadStream } from 'node:fs';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { parse } from 'csv-parse';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node bench/csv-parse-rate.mjs <file.csv>\n');
  process.exit(2);
}
const start = performance.now();
let records = 0;
const parser = createReadStream(file).pipe(parse({ columns: true }));
parser.on('readable', () => {
  while (parser.read() !== null) records += 1;
});
parser.on('error', (err) => {
  process.stderr.write(`csv-parse: ${err.message}\n`);
  process.exit(1);
});
parser.on('end', () => {
  const ms = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ records, ms, rate: records / (ms / 1000) })}\n`);
});
