// --max-cost: the amount a campaign's estimate may reach (./estimate.ts), in the price file's
// currency: `250`, `250.50`, `250 EUR` or `EUR 250`.
import { UsageError } from '../errors.js';
import { MICROS } from './price-file.js';

export interface MaxCost {
  /** Millionths of the currency. */
  readonly micros: number;
  /** The currency, when it was written; it must be the price file's. */
  readonly currency: string | undefined;
  readonly text: string;
}

export function parseMaxCost(text: string | undefined): MaxCost | undefined {
  if (text === undefined) return undefined;
  const m = /^\s*(?:([A-Za-z]{3})\s*)?(\d+(?:\.\d+)?)\s*(?:([A-Za-z]{3}))?\s*$/.exec(text);
  if (m === null || (m[1] !== undefined && m[3] !== undefined)) {
    throw new UsageError(`--max-cost: "${text}" is not an amount`, { hint: 'Give the amount in the price file\'s currency: --max-cost 250, or --max-cost "250 EUR".' });
  }
  return { micros: Math.round(Number(m[2]) * MICROS), currency: (m[1] ?? m[3])?.toUpperCase(), text: text.trim() };
}
