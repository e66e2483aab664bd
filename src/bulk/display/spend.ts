// What a campaign may spend, as the preflight and the summary say it: --limit (a canary), the
// cost estimate (--price-file) and its cap (--max-cost), and the --json fields that carry them (docs/cost-and-canary.md).
import { UsageError, type ExitCode } from '../../errors.js';
import { formatMoney, MICROS } from '../../pricing/price-file.js';
import type { CostEstimate } from '../../pricing/estimate.js';
import type { MaxCost } from '../../pricing/max-cost.js';
import { analyseText, describeChar } from '../../message/segments.js';
import { gsmSafe, isGsmSafeLookalike } from '../../lookalikes/gsm-safe.js';
import type { GsmSafeChange } from '../compose/base-request.js';
import { describeNumberType } from '../../number-types/number-type.js';
import type { Filtered } from '../preflight/range.js';
import type { Ui } from '../../output/ui.js';
import { formatCount } from '../../output/count.js';
import { FLAG } from '../flag-names.js';

/** The --json summary's `spend`. */
export interface SpendSummary {
  /** --limit: the rows this command sends at most; null: all of them. */
  limit: number | null;
  /** --price-file: the estimate of the rows to send; null without a price file. */
  estimate: EstimateJson | null;
  /** --max-cost as given; null without. */
  maxCost: string | null;
  /** --gsm-safe: what it changed (null: not given, or nothing to change; a resume's text was changed when its run started). */
  gsmSafe: { replaced: number; firstChange: { before: string; after: string }; partsPerMessageBefore: number; partsPerMessageAfter: number; partsSaved: number | null } | null;
  /** --mobile-only: rows left out by type (libphonenumber-js names), and those typed "fixed line or mobile", kept; null without. */
  mobileOnly: { filtered: number; byType: Partial<Record<string, number>>; fixedLineOrMobileKept: number } | null;
}

/** Up to 30 characters either side of the first character that differs, in both texts. */
export function firstChange(before: string, after: string): { before: string; after: string } {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  const from = Math.max(0, i - 30);
  const cut = (t: string, end: number): string => `${from > 0 ? '…' : ''}${t.slice(from, end)}${end < t.length ? '…' : ''}`;
  return { before: cut(before, Math.min(before.length, i + 30)), after: cut(after, Math.min(after.length, i + 30)) };
}

/**
 * --gsm-safe's lines: the first change and the parts it saves. `toSend`: messages of the shared
 * text (undefined with a message per row, where the rows' values count too).
 */
export function gsmSafeSummary(change: GsmSafeChange, toSend: number | undefined): NonNullable<SpendSummary['gsmSafe']> {
  const before = analyseText(change.before).parts;
  const after = analyseText(change.after).parts;
  return { replaced: change.replaced, firstChange: firstChange(change.before, change.after), partsPerMessageBefore: before, partsPerMessageAfter: after, partsSaved: toSend !== undefined ? (before - after) * toSend : null };
}

export function printGsmSafe(ui: Pick<Ui, 'info'>, g: NonNullable<SpendSummary['gsmSafe']>): void {
  const saved = g.partsSaved !== null ? `: ${formatCount(g.partsSaved)} SMS part${s(g.partsSaved)} saved` : ' (as written, before the columns are filled in)';
  ui.info(`  ${FLAG.gsmSafe}: ${formatCount(g.replaced)} look-alike${s(g.replaced)} replaced, first "${g.firstChange.before}" → "${g.firstChange.after}"; ${g.partsPerMessageBefore} → ${g.partsPerMessageAfter} part${s(g.partsPerMessageAfter)} a message${saved}`);
}

/**
 * Without --gsm-safe: the parts the text's look-alikes cost, when replacing them would make it
 * GSM-7, and the flag that does it. `toSend`: messages of the shared text (undefined: per row).
 */
export function printLookalikeCost(ui: Pick<Ui, 'info'>, text: string | undefined, toSend: number | undefined): void {
  if (text === undefined) return;
  const safe = gsmSafe(text);
  if (safe.replaced === 0) return;
  const before = analyseText(text);
  const after = analyseText(safe.text);
  if (after.parts >= before.parts && after.encoding === before.encoding) return;
  const chars = [...new Set([...text].filter(isGsmSafeLookalike))].map(describeChar).join(', ');
  const cost = after.parts < before.parts ? `${before.parts} SMS parts a message instead of ${after.parts}${toSend !== undefined ? ` (${formatCount((before.parts - after.parts) * toSend)} more in all)` : ''}` : `UCS-2 instead of GSM-7`;
  ui.info(`  look-alike${s(safe.replaced)} in the text: ${chars} cost${safe.replaced === 1 ? 's' : ''} ${cost}; ${FLAG.gsmSafe} replaces them with GSM-7 characters`);
}

/** --mobile-only's line: the rows left out, by type, with their first lines. */
export function printFiltered(ui: Pick<Ui, 'info'>, f: Filtered): void {
  const types = Object.entries(f.byType).map(([type, n]) => `${formatCount(n ?? 0)} ${describeNumberType(type as never)}`);
  const lines = f.samples.map((x) => x.line);
  const kept = f.kept > 0 ? `; ${formatCount(f.kept)} typed "fixed line or mobile" (the plan cannot tell), kept` : '';
  if (f.count === 0) {
    ui.info(`  ${FLAG.mobileOnly}: no row left out${kept}`);
    return;
  }
  ui.info(`  ${FLAG.mobileOnly}: ${formatCount(f.count)} row${s(f.count)} left out (filtered): ${types.join(', ')} (line${s(lines.length)} ${lines.join(', ')}${f.count > lines.length ? ', …' : ''})${kept}`);
}

export function filteredJson(f: Filtered | undefined): SpendSummary['mobileOnly'] {
  return f === undefined ? null : { filtered: f.count, byType: f.byType, fixedLineOrMobileKept: f.kept };
}

/** The estimate in --json: amounts as decimal strings in the file's currency (no float drift). */
export interface EstimateJson {
  priceFile: string;
  currency: string;
  total: string;
  messages: number;
  parts: number;
  /** Messages no line of the price file prices: not in the total. */
  unpriced: number;
  countries: Array<{ country: string; messages: number; parts: number; cost: string | null; unpriced: number }>;
}

const amount = (micros: number): string => (micros / MICROS).toFixed(6).replace(/0{1,4}$/, '');

export function estimateJson(e: CostEstimate): EstimateJson {
  return {
    priceFile: e.file,
    currency: e.currency,
    total: amount(e.micros),
    messages: e.messages,
    parts: e.parts,
    unpriced: e.unpriced,
    countries: e.countries.map((c) => ({ country: c.country, messages: c.messages, parts: c.parts, cost: c.unpriced === c.messages ? null : amount(c.micros), unpriced: c.unpriced })),
  };
}

/** The preflight's estimate: the total, then each country (the first ten, the rest summed). */
export function printEstimate(ui: Pick<Ui, 'info'>, e: CostEstimate, resumed: boolean): void {
  const money = (m: number): string => formatMoney(m, e.currency);
  const unpriced = e.unpriced > 0 ? `; ${formatCount(e.unpriced)} message${s(e.unpriced)} without a price in the file, not counted` : '';
  ui.info(`  cost estimate${resumed ? ' of the whole run' : ''}: ${money(e.micros)} for ${formatCount(e.parts)} SMS part${s(e.parts)} (prices from ${e.file}; an estimate, not a bill)${unpriced}`);
  const shown = e.countries.slice(0, 10);
  for (const c of shown) {
    const cost = c.unpriced === c.messages ? 'no price in the file' : `${money(c.micros)}${c.unpriced > 0 ? ` (${formatCount(c.unpriced)} without a price)` : ''}`;
    ui.info(`    ${c.country}: ${formatCount(c.messages)} message${s(c.messages)}, ${formatCount(c.parts)} part${s(c.parts)}, ${cost}`);
  }
  const rest = e.countries.slice(10);
  if (rest.length > 0) ui.info(`    ${rest.length} more countr${rest.length === 1 ? 'y' : 'ies'}: ${money(rest.reduce((n, c) => n + c.micros, 0))}`);
}

/**
 * --max-cost: the run does not start when the estimate is higher, or when rows have no price
 * (the cap cannot be checked). The refusal names the estimate and offers the command that would
 * be accepted: the same with a cap at the estimate, rounded up to a whole unit.
 */
export function maxCostError(e: CostEstimate, max: MaxCost, withMaxCost: (amount: string) => string, jsonFor: (exitCode: ExitCode) => unknown): UsageError | undefined {
  if (max.currency !== undefined && max.currency !== e.currency) {
    return new UsageError(`${FLAG.maxCost} ${max.text} is in ${max.currency}, the prices in ${e.file} in ${e.currency}; nothing was sent`, { hint: `Give the cap in ${e.currency}: ${withMaxCost(`${Math.ceil(max.micros / MICROS)} ${e.currency}`)}`, jsonFor });
  }
  if (e.unpriced > 0) {
    const where = e.countries.filter((c) => c.unpriced > 0).map((c) => c.country);
    return new UsageError(`${FLAG.maxCost}: ${formatCount(e.unpriced)} message${s(e.unpriced)} (to ${where.slice(0, 10).join(', ')}${where.length > 10 ? ', …' : ''}) ha${e.unpriced === 1 ? 's' : 've'} no price in ${e.file}, so the cap cannot be checked; nothing was sent`, {
      hint: `Add a line for ${where.length === 1 ? 'it' : 'each'} to ${e.file} (country code or E.164 prefix, price per part, currency), for example: ${where[0] === '??' ? '+882' : (where[0] ?? 'GB')},0.05,${e.currency}`,
      jsonFor,
    });
  }
  if (e.micros <= max.micros) return undefined;
  const up = `${Math.ceil(e.micros / MICROS)}${max.currency !== undefined ? ` ${max.currency}` : ''}`;
  return new UsageError(`the cost estimate, ${formatMoney(e.micros, e.currency)} for ${formatCount(e.parts)} SMS part${s(e.parts)}, is above ${FLAG.maxCost} ${formatMoney(max.micros, e.currency)}; nothing was sent`, {
    hint: `Check the message's length and the list (the estimate per country is above). To send at this estimate: ${withMaxCost(up)}`,
    jsonFor,
  });
}


const s = (n: number): string => (n === 1 ? '' : 's');

/**
 * The preflight's line for --limit: what this command sends of the rows to send. `toSend`: the
 * rows this command has left to send (a resume's are fewer than the file's). Requests are never
 * split (a resume sends each under its Idempotency-Key with the same recipients), so with one
 * text for every row it sends whole requests of `batchSize`; with a message per row, requests
 * hold one message's rows and may be smaller.
 */
export function printLimit(ui: Pick<Ui, 'info'>, limit: number | null, toSend: number, batchSize: number, perRow: boolean): void {
  if (limit === null || toSend <= limit) return;
  const sent = perRow ? limit : Math.floor(limit / batchSize) * batchSize;
  const whole = sent !== limit ? ` (${formatCount(sent)}: requests of ${formatCount(batchSize)} are never split)` : perRow ? ' at most (whole requests)' : '';
  ui.info(`  ${FLAG.limit} ${formatCount(limit)}: this command sends the first ${formatCount(limit)} recipient${s(limit)}${whole}, then stops; a resume sends the rest`);
}

/** A limit smaller than a request would send nothing. */
export function limitError(limit: number | null, batchSize: number, resumed: boolean): UsageError | undefined {
  if (limit === null || limit >= batchSize) return undefined;
  return new UsageError(`${FLAG.limit} ${formatCount(limit)} is smaller than one request of ${formatCount(batchSize)} recipients${resumed ? ' (the run\'s batch size)' : ''}: nothing would be sent`, {
    hint: resumed ? `Give ${FLAG.limit} ${formatCount(batchSize)} or more: a resumed run keeps its requests as they were.` : `Give ${FLAG.limit} ${formatCount(batchSize)}, or ${FLAG.batchSize} ${formatCount(limit)} with it.`,
  });
}

/**
 * After a run that stopped at its --limit: how many are left and the command that sends them.
 * `left`: recipients not sent.
 */
export function printLimitStop(ui: Pick<Ui, 'info'>, limit: number, left: number, resume: string | null): void {
  ui.info(`  stopped at ${FLAG.limit} ${formatCount(limit)}: ${formatCount(left)} recipient${s(left)} left to send${resume !== null ? `; send them with: ${resume}` : ''}`);
}
