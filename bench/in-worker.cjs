// Measurement only: runs msgr's whole command line in a worker thread whose young generation is
// capped (YOUNG, MB; default 16), to see what peak RSS a send pass off the main thread would have
// (docs/performance-history.md: "Personalised messages"). Usage: YOUNG=16 node bench/in-worker.cjs send-bulk FILE ...
'use strict';
const { Worker } = require('node:worker_threads');
const { join } = require('node:path');

const young = Number(process.env.YOUNG || 16);
const worker = new Worker(join(__dirname, '..', 'bin', 'msgr.js'), { argv: process.argv.slice(2), resourceLimits: { maxYoungGenerationSizeMb: young } });
worker.on('exit', (code) => {
  process.exitCode = code;
});
worker.on('error', (err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 70;
});
