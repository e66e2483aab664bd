// Section memory: peak RSS of the bulk section's send-bulk run, and of a 10,000,000-row run with
// --big.
import { statSync } from 'node:fs';
import { cfg, opt } from '../lib/config.mjs';
import { MB, fmtInt, fmtMB, passMiss, row } from '../lib/results.mjs';
import { bulkRun } from '../lib/send-bulk.mjs';

export async function sectionMemory() {
  console.error('\n== memory ==');
  const limit1 = 150 * MB;
  const r = await bulkRun(cfg.rows);
  const figure = `peak RSS, send-bulk ${fmtInt(cfg.rows)} rows`;
  if (r.skipped !== undefined) {
    row('memory', figure, 'not measured', `<= ${fmtMB(limit1)}`, '', 'skip');
  } else if (r.code !== 0 || r.peak === undefined) {
    row('memory', figure, r.code !== 0 ? `run failed (exit ${r.code ?? r.signal})` : 'no RSS reading', `<= ${fmtMB(limit1)}`, '', 'error');
  } else {
    row('memory', figure, fmtMB(r.peak), `<= ${fmtMB(limit1)}`, `file ${fmtMB(statSync(r.file).size)}`, passMiss(r.peak <= limit1));
  }
  const bigFigure = `peak RSS, send-bulk ${fmtInt(cfg.bigRows)} rows`;
  const limit10 = 150 * MB + 30 * (cfg.bigRows - 1_000_000);
  const target10 = `<= ${fmtMB(limit10)} (150 MB + 30 B × ${fmtInt(cfg.bigRows - 1_000_000)} extra numbers)`;
  if (!opt.big) {
    row('memory', bigFigure, 'not run (needs --big)', target10, '', 'skip');
    return;
  }
  const big = await bulkRun(cfg.bigRows);
  if (big.skipped !== undefined) row('memory', bigFigure, 'not measured', target10, '', 'skip');
  else if (big.code !== 0 || big.peak === undefined) row('memory', bigFigure, big.code !== 0 ? `run failed (exit ${big.code ?? big.signal})` : 'no RSS reading', target10, '', 'error');
  else row('memory', bigFigure, `${fmtMB(big.peak)} (${fmtInt(cfg.bigRows / (big.ms / 1000))} recipients/s)`, target10, `file ${fmtMB(statSync(big.file).size)}`, passMiss(big.peak <= limit10));
}
