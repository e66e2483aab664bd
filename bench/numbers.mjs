// Micro-benchmark: normaliseNumber vs normaliseNumberFast over 300k realistic mobile numbers
// (GB/DE/FR/US/IN mix), one core. Needs the transpiled sources first:
//   node scripts/build.mjs --tests   (or: npx esbuild $(find src test -name '*.ts') --outdir=build --outbase=. --format=esm --platform=node)
//   node bench/numbers.mjs [count]
import { performance } from 'node:perf_hooks';

const count = Number(process.argv[2] ?? 300_000);

// Cold start: importing the module compiles nothing; the first number of each calling code does.
let t0 = performance.now();
const { normaliseNumber } = await import('../build/src/message/numbers.js');
const tNumbers = performance.now() - t0;
t0 = performance.now();
const { fastNormalise, normaliseNumberFast } = await import('../build/src/message/fast-numbers.js');
const tFast = performance.now() - t0;

// Deterministic PRNG (mulberry32).
let seed = 0x0b5e55ed;
function rand() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(rand() * list.length)];
const digits = (n) => {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 10);
  return s;
};

const makers = [
  () => `+447${pick(['4', '5', '7', '8', '9'])}${digits(8)}`,
  () => {
    const prefix = pick(['151', '152', '155', '157', '159', '160', '162', '163', '170', '171', '172', '173', '174', '175', '176', '177', '178', '179']);
    return `+49${prefix}${digits(prefix.startsWith('15') ? 8 : 7 + Math.floor(rand() * 2))}`;
  },
  () => `+33${pick(['6', '7'])}${digits(8)}`,
  () => `+1${pick(['201', '212', '213', '305', '312', '415', '512', '617', '646', '702', '718', '917'])}${2 + Math.floor(rand() * 8)}${digits(6)}`,
  () => `+91${6 + Math.floor(rand() * 4)}${digits(9)}`,
];
const numbers = Array.from({ length: count }, () => pick(makers)());

const cold = {};
for (const raw of ['+447911123456', '+4915123456789', '+33612345678', '+14155550100', '+919876543210']) {
  const t = performance.now();
  fastNormalise(raw);
  cold[raw.slice(0, 3)] = `${(performance.now() - t).toFixed(2)} ms`;
}

// Same answers, and how often the fast path answers.
let hits = 0;
let warnings = 0;
for (const raw of numbers) {
  const fast = fastNormalise(raw);
  const slow = normaliseNumber(raw);
  if (fast !== undefined) {
    hits++;
    if (JSON.stringify(fast) !== JSON.stringify(slow)) {
      console.error(`MISMATCH ${raw}: fast ${JSON.stringify(fast)} slow ${JSON.stringify(slow)}`);
      process.exitCode = 1;
    }
  }
  if (slow.ok && slow.warning !== undefined) warnings++;
}

function run(fn) {
  let ok = 0;
  const t = performance.now();
  for (let i = 0; i < numbers.length; i++) if (fn(numbers[i]).ok) ok++;
  const ms = performance.now() - t;
  return { perSecond: numbers.length / (ms / 1000), ok };
}

const results = { normaliseNumber: [], normaliseNumberFast: [] };
for (let round = 0; round < 3; round++) {
  results.normaliseNumber.push(run(normaliseNumber).perSecond);
  results.normaliseNumberFast.push(run(normaliseNumberFast).perSecond);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const slow = median(results.normaliseNumber);
const fast = median(results.normaliseNumberFast);
const fmt = (n) => `${Math.round(n).toLocaleString('en-US')} numbers/s`;

console.log(`node ${process.version}, ${numbers.length.toLocaleString('en-US')} numbers (GB/DE/FR/US/IN mobiles), median of 3 rounds, one core`);
console.log(`import: numbers.js ${tNumbers.toFixed(1)} ms (loads libphonenumber-js max metadata), fast-numbers.js ${tFast.toFixed(1)} ms`);
console.log(`first call per calling code (compiles its regexes): ${JSON.stringify(cold)}`);
console.log(`fast path answered ${hits} of ${numbers.length} (${((100 * hits) / numbers.length).toFixed(2)} %); ${warnings} were possible-but-not-valid warnings`);
console.log(`normaliseNumber      ${fmt(slow)}   rounds: ${results.normaliseNumber.map(fmt).join(', ')}`);
console.log(`normaliseNumberFast  ${fmt(fast)}   rounds: ${results.normaliseNumberFast.map(fmt).join(', ')}`);
console.log(`speed-up             x${(fast / slow).toFixed(1)}`);
