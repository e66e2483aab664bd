// A node:test reporter that writes Node's own totals (its closing "tests", "pass", "fail", ...
// diagnostics) as one JSON line, for scripts/run-tests.mjs to end `npm test` with one human line.
export default async function* totals(source) {
  const counts = {};
  for await (const event of source) {
    if (event.type !== 'test:diagnostic' || event.data.nesting !== 0) continue;
    const m = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(event.data.message);
    if (m !== null) counts[m[1]] = Number(m[2]);
  }
  yield `${JSON.stringify(counts)}\n`;
}
