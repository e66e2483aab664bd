// The opt-out store (docs/optouts.md): the numbers that must not be messaged, one store per
// account, kept as an append-only log of changes (`<state>/optouts/<account>.jsonl`, 0600), so
// that every opt-out keeps its time, source and evidence, and a later question ("was this number
// opted out when that run sent to it?") has its answer. Writers take the store's lock, read what
// others appended since, append, and fdatasync before they return: two processes adding at once
// lose nothing, and an opt-out that `msgr listen` acknowledged survives a crash.
//
// Front doors: `openOptOuts(state, account, proc)` for a sender that must leave the numbers out
// (the account's store and the `_all` one, whose numbers apply to every account), and
// `OptOutStore.open(path, proc)` to change one store (store-file.ts: its log, its lock and the
// index kept beside it). What is a line of the store, and what is
// damage: store-lines.ts (`readStoreLines`), the one reading of its lines. Damage stops a sender
// (openOptOuts, refuseDamage), never a writer: an opt-out is recorded whatever else the file holds.
//
// One number's answer (opted out, a possible opt-out undecided) is looked up in the index beside
// the store (lookup.ts, index-file.ts: a few small reads, however many numbers the store holds), as
// are its totals and its damage; what needs every change (the list, an export, the history for
// `optout violations`) reads the store whole, once, when first asked. Writers keep the index
// current after each append, under the same lock.
import { UsageError } from '../errors.js';
import type { LockProcess } from '../files/lock.js';
import { accountFile, NO_ACCOUNT } from '../files/account-files.js';
import { shellQuote as shellWord } from '../output/shell.js';
import { quoted } from '../output/sanitize.js';
import { normaliseNumber, OPT_OUT_NUMBERS } from '../message/numbers.js';
import { OptOutStore, type OptOutEntry, type PossibleEntry } from './store-file.js';
import { OPTED_OUT, POSSIBLE } from './index-file.js';

export { STORE_VERSION, type BadLine, type Evidence, type OptOutReason, type OptOutRecord } from './store-lines.js';
export { OptOutStore, OptOutWriteError, storeWriteError, tornPath, withStoreLock, type OptOutChange, type OptOutEntry, type PossibleEntry, type StoreWriter } from './store-file.js';

export function optOutStorePath(state: string, account: string | undefined): string {
  return accountFile(state, 'optouts', account, 'jsonl');
}

/** The command that repairs the store of `account` (undefined: the one for every account). */
export function repairCommand(account: string | undefined): string {
  return `msgr optout repair ${account === undefined || account === NO_ACCOUNT ? '--all-accounts' : `--account ${shellWord(account)}`}`;
}

/**
 * A store with lines that are not records: the numbers they may hold cannot be left out, so a
 * command that decides whom to message stops (exit 2), naming the lines and the repair.
 */
export class DamagedStoreError extends UsageError {
  constructor(path: string, damage: OptOutStore['damage'], account: string | undefined, outcome = NOTHING_SENT) {
    const shown = damage.lines.slice(0, 3).map((b) => `line ${b.line}: ${quoted(visible(b.text))}`);
    const more = damage.count > shown.length ? `, and ${damage.count - shown.length} more` : '';
    // A number typed as it is dialled at home needs its country: the repair refuses to guess.
    const national = damage.lines.some((b) => {
      const value = b.text.replace(/#.*$/, '').trim().replace(/[,;]+$/, '');
      const r = value === '' ? undefined : normaliseNumber(value, undefined, OPT_OUT_NUMBERS);
      return r?.ok === false && r.cause === 'national';
    });
    super(`the opt-out store ${path} has ${damage.count} line${damage.count === 1 ? '' : 's'} that ${damage.count === 1 ? 'is not a record' : 'are not records'} (${shown.join('; ')}${more}): the numbers on ${damage.count === 1 ? 'it' : 'them'} cannot be left out; ${outcome}`, {
      hint: `${repairCommand(account)}${national ? ' --default-country GB (the country its national numbers are dialled in)' : ''} turns the numbers on such lines (typed by hand, or in a record cut short) into opt-outs and sets the other lines aside (the file as it was is kept beside it); or take the lines out of the file by hand and add their numbers with msgr optout import FILE.`,
    });
  }
}

/** A line for a message: no longer than a line (quoted shows what is not safe to print). */
function visible(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** What a refusal says did not happen: a sender's by default; a listing or a check says its own. */
const NOTHING_SENT = 'nothing was sent';

/** Stops a command that decides whom to message when the store holds lines that are not records. */
export function refuseDamage(store: OptOutStore, account: string | undefined, outcome = NOTHING_SENT): OptOutStore {
  const damage = store.damage;
  let cut = store.cutShort;
  if (cut !== undefined) {
    // Perhaps a writer's line caught half-way: a write is one call, so a moment settles it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, CUT_SHORT_WAIT_MS);
    cut = store.cutShort;
  }
  if (damage.count > 0 || cut !== undefined) throw new DamagedStoreError(store.path, cut === undefined ? damage : { count: damage.count + 1, lines: [...damage.lines, cut] }, account, outcome);
  return store;
}

/** How long a reader gives a last line cut short to be finished by its writer. */
const CUT_SHORT_WAIT_MS = 100;

/** The numbers a sender must leave out: an account's store and the one for every account. */
export interface OptOuts {
  /** The store files read (those that exist or not), for messages. */
  readonly files: readonly string[];
  readonly size: number;
  /** The stores' counts added up: `size`, or more when a number is in both; to size a set with. */
  readonly capacity: number;
  has(number: string): boolean;
  get(number: string): OptOutEntry | undefined;
  /** The numbers opted out now, in no order. */
  numbers(): string[];
  /** The same, as their digits (the key of a bulk run's NumberSet): a number in both stores twice. */
  keys(visit: (key: number) => void): void;
  /**
   * Many numbers asked in turn, as their digits (a bulk run's rows), each store's index held open
   * until `close`: a few small reads a number, however many the stores hold, where `keys` lists
   * them all.
   */
  probe(): OptOutProbe;
  /** The opt-out in force for `number` at `at` in either store (OptOutStore.optedOutAt). */
  optedOutAt(number: string, at: Date): OptOutEntry | undefined;
  /** The command that takes `number` off the store that has it (the account's, or the one for every account). */
  removeCommand(number: string): string;
  /** A possible opt-out of `number` not decided yet (and the number not opted out in either store). */
  undecided(number: string): PossibleEntry | undefined;
  /** Every possible opt-out not decided yet. */
  pending(): PossibleEntry[];
  /**
   * How many possible opt-outs the stores hold undecided, from their indexes (one of a number
   * opted out in the other store counted too): 0, there is none to ask about.
   */
  readonly undecidedCount: number;
  /** The commands that decide on `number`'s possible opt-out, for a refusal's hint. */
  decideCommand(number: string, decision: 'accept' | 'dismiss'): string;
  /** `msgr optout possible` for the store that holds this number's possible opt-out. */
  listCommand(number: string): string;
}

/** Numbers asked in turn of both stores (OptOuts.probe), by their digits. */
export interface OptOutProbe {
  /**
   * `opted-out` in either store (OptOuts.has); `undecided`: a possible opt-out no one has decided
   * on, the number opted out in neither (OptOuts.undecided); undefined: neither.
   */
  state(key: number): 'opted-out' | 'undecided' | undefined;
  close(): void;
}

/** An opt-out for people: `opted out since 2030-01-01T09:00:03.120Z, reply "STOP"`. */
export function describeOptOut(e: OptOutEntry): string {
  // The word that made a longer reply an opt-out ("Stop by tomorrow?": "stop").
  const alone = e.evidence?.text?.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const word = e.evidence?.word !== undefined && alone !== undefined && alone !== e.evidence.word ? ` (stop word "${e.evidence.word}")` : '';
  const why = e.evidence?.text !== undefined ? ` ${quoted(e.evidence.text)}${word}` : e.evidence?.note !== undefined ? ` (${e.evidence.note})` : e.evidence?.code !== undefined ? ` (${e.evidence.code})` : '';
  return `${e.reason === 'undeliverable' ? 'undeliverable' : 'opted out'} since ${e.since}, ${e.source}${why}`;
}

/**
 * The account whose store a send leaves out: the one it sends for. The sandbox sends for the
 * account the settings give, so a trial leaves out what the real campaign will (docs/optouts.md:
 * "Sending"); with none, it sends as `SANDBOX`, a stand-in that is no account: only the store for
 * every account applies then.
 */
export function optOutAccount(accountReference: unknown, sandbox: boolean): string | undefined {
  if (typeof accountReference !== 'string' || accountReference === '') return undefined;
  return sandbox && accountReference === SANDBOX_ACCOUNT ? undefined : accountReference;
}

/** The account the sandbox sends as when none is given. */
export const SANDBOX_ACCOUNT = 'SANDBOX';

/**
 * How many numbers of an opt-out store are listed in the time one number is asked of its index
 * (a few small reads): ~0.6 µs a number listed, ~5-10 µs a number asked, over stores of 100,000
 * and 1,000,000 numbers (docs/performance.md: "Why the misses").
 */
const LISTED_PER_ASK = 16;

/** Listing `numbers` of a store costs less than asking it for `asks` numbers one by one. */
export function listingCostsLess(numbers: number, asks: number): boolean {
  return numbers <= asks * LISTED_PER_ASK;
}

/**
 * The opt-outs that apply to `account` (undefined: no account known, only the `_all` store). One
 * number's answer (get, has, undecided, the commands) is looked up in the stores' indexes, and so
 * are their damage, totals and numbers (`keys`, `numbers()` in no order); `optedOutAt` reads the
 * stores whole (their history). `proc` (the Context) lets an index that does not describe its
 * store be made again on disk; without it, in memory, this time.
 */
export function openOptOuts(state: string, account: string | undefined, proc?: LockProcess, outcome = NOTHING_SENT): OptOuts {
  const paths = [...new Set([optOutStorePath(state, account), optOutStorePath(state, NO_ACCOUNT)])];
  // A store with lines that are not records stops the send: its numbers cannot all be left out.
  const stores = paths.map((p, i) => refuseDamage(OptOutStore.open(p, proc), i === 0 ? account : undefined, outcome));
  const get = (n: string): OptOutEntry | undefined => {
    for (const s of stores) {
      const e = s.get(n);
      if (e !== undefined) return e;
    }
    return undefined;
  };
  const keys = (visit: (key: number) => void): void => {
    for (const s of stores) s.optedOutKeys(visit);
  };
  const probe = (): OptOutProbe => {
    const each = stores.map((s) => s.probe());
    const flags = (key: number): number => each.reduce((f, p) => f | p.flags(key), 0);
    return {
      state: (key) => {
        const f = flags(key);
        return (f & OPTED_OUT) !== 0 ? 'opted-out' : (f & POSSIBLE) !== 0 ? 'undecided' : undefined;
      },
      close: () => {
        for (const p of each) p.close();
      },
    };
  };
  const numbers = (): string[] => {
    const out = new Set<string>();
    keys((k) => out.add(`+${k}`));
    return [...out];
  };
  // Counted from the indexes; a number in both stores only once: the smaller store's numbers asked
  // of the larger's index (a few reads a number) where listing both would read every number of the
  // larger (a store of every account with a few numbers beside an account's of millions).
  const size = (): number => {
    const counts = stores.map((s) => s.size);
    const total = counts.reduce((a, b) => a + b, 0);
    const [a, b] = stores;
    if (counts.filter((c) => c > 0).length <= 1 || a === undefined || b === undefined) return total;
    const [small, large] = (counts[0] ?? 0) <= (counts[1] ?? 0) ? [a, b] : [b, a];
    // Two stores alike in size are listed.
    if (listingCostsLess(Math.max(...counts), Math.min(...counts))) return numbers().length;
    const probe = large.probe();
    let both = 0;
    try {
      small.optedOutKeys((key) => {
        if ((probe.flags(key) & OPTED_OUT) !== 0) both++;
      });
    } finally {
      probe.close();
    }
    return total - both;
  };
  const optedOutAt = (n: string, at: Date): OptOutEntry | undefined => {
    for (const s of stores) {
      const e = s.optedOutAt(n, at);
      if (e !== undefined) return e;
    }
    return undefined;
  };
  const removeCommand = (n: string): string => {
    const own = account !== undefined && account !== NO_ACCOUNT && stores[0]?.has(n) === true;
    return `msgr optout remove ${n} ${own ? `--account ${shellWord(account)}` : '--all-accounts'}`;
  };
  const has = (n: string): boolean => get(n) !== undefined;
  const undecided = (n: string): PossibleEntry | undefined => {
    if (has(n)) return undefined;
    for (const s of stores) {
      const p = s.undecided(n);
      if (p !== undefined) return p;
    }
    return undefined;
  };
  const pending = (): PossibleEntry[] => {
    const seen = new Set<string>();
    const out: PossibleEntry[] = [];
    for (const s of stores) {
      for (const p of s.pending()) {
        if (seen.has(p.number) || has(p.number)) continue;
        seen.add(p.number);
        out.push(p);
      }
    }
    return out;
  };
  // The store that holds the number's possible opt-out: the account's own, or every account's.
  const scope = (n: string): string => (account !== undefined && account !== NO_ACCOUNT && stores[0]?.undecided(n) !== undefined ? `--account ${shellWord(account)}` : '--all-accounts');
  const decideCommand = (n: string, decision: 'accept' | 'dismiss'): string => `msgr optout possible --${decision} ${n} ${scope(n)}`;
  const listCommand = (n: string): string => `msgr optout possible ${scope(n)}`;
  return { files: paths, get size() { return size(); }, get capacity() { return stores.reduce((n, s) => n + s.size, 0); }, get undecidedCount() { return stores.reduce((n, s) => n + s.undecidedCount, 0); }, has, get, numbers, keys, probe, optedOutAt, removeCommand, undecided, pending, decideCommand, listCommand };
}

/** A possible opt-out for people: `"remove me from your list" (reply, 2030-01-01T09:00:03.120Z; informal request "remove me")`. */
export function describePossible(p: PossibleEntry): string {
  const text = p.evidence?.text !== undefined ? `${quoted(p.evidence.text)} ` : '';
  const why = p.evidence?.why !== undefined ? `; ${p.evidence.why}${p.evidence.matched !== undefined ? ` "${p.evidence.matched}"` : ''}` : '';
  return `${text}(${p.source}, ${p.since}${p.replies > 1 ? `, ${p.replies} replies` : ''}${why})`;
}
