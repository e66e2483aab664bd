// `msgr optout …`: account → store → the change or the answer (docs/optouts.md).
import { resolve } from 'node:path';
import { renameSync, writeFileSync } from 'node:fs';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { NO_ACCOUNT } from '../../files/account-files.js';
import { checkCountry, normaliseNumber, OPT_OUT_NUMBERS } from '../../message/numbers.js';
import { showControls } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import { describeOptOut, describePossible, openOptOuts, optOutStorePath, OptOutStore, refuseDamage, type OptOutEntry, type PossibleEntry, type StoreWriter } from '../../optouts/store.js';
import { shellQuote } from '../../output/shell.js';
import { resolveAccount } from '../shared/account.js';
import type { OptoutOptions } from './options.js';
import { stateDir } from '../../files/state-dir.js';

const describe = describeOptOut;

function entryJson(e: OptOutEntry, store: string): Record<string, unknown> {
  return { number: e.number, since: e.since, reason: e.reason, source: e.source, evidence: e.evidence ?? null, store };
}

export async function runOptout(ctx: Context, sub: string, args: readonly string[], opts: OptoutOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  const state = stateDir(ctx.env, ctx.cwd);
  const chosen = await resolveAccount(ctx, { ...opts, account: opts.allAccounts ? undefined : opts.account });
  const account = opts.allAccounts ? undefined : chosen.account;
  const path = optOutStorePath(state, account);
  const country = chosen.defaultCountry !== undefined ? checkCountry(chosen.defaultCountry, '--default-country') : undefined;
  const writer: StoreWriter = { pid: ctx.pid, now: ctx.now, isProcessAlive: ctx.isProcessAlive, command: `msgr optout ${sub}` };
  const numbers = (given: readonly string[] = args): string[] => {
    const bad: string[] = [];
    const out = given.map((raw) => {
      const r = normaliseNumber(raw, country, OPT_OUT_NUMBERS);
      if (!r.ok) bad.push(`${raw}: ${r.reason}`);
      return r.ok ? r.e164 : '';
    });
    if (bad.length > 0) throw new UsageError(`not a phone number: ${bad.join('; ')}; nothing was changed`, { hint: 'Give international numbers (+44…), or national ones with --default-country.' });
    return out;
  };
  const scope = account === undefined ? `every account (${NO_ACCOUNT})` : `account ${account}`;

  switch (sub) {
    case 'add':
    case 'import': {
      const store = OptOutStore.open(path, ctx);
      let changes;
      if (sub === 'add') {
        changes = numbers().map((number) => ({ number, reason: opts.undeliverable ? ('undeliverable' as const) : ('opt-out' as const), source: opts.source ?? 'manual', ...(opts.note !== undefined ? { evidence: { note: opts.note } } : {}) }));
      } else {
        const { readOptOutFile } = await import('../../optouts/import.js');
        const file = resolve(ctx.cwd, args[0] ?? '');
        const read = await readOptOutFile(file, { column: opts.column, country });
        changes = read.entries.map((e) => ({ number: e.number, reason: e.reason ?? 'opt-out', source: opts.source ?? e.source ?? 'import', evidence: { ...(e.evidence ?? {}), file, ...(opts.note !== undefined ? { note: opts.note } : {}) } }));
      }
      const { added, already } = await store.add(changes, writer);
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ store: path, added: added.map((e) => entryJson(e, path)), already: already.map((e) => entryJson(e, path)) }, null, 2)}\n`);
      } else if (sub === 'add') {
        for (const e of added) ui.success(showControls(`${e.number}: ${describe(e)} (${scope})`));
        for (const e of already) ui.info(showControls(`${e.number}: already ${describe(e)}`));
      } else {
        ui.success(`imported ${added.length} number${added.length === 1 ? '' : 's'} into the opt-outs of ${scope}${already.length > 0 ? `; ${already.length} were there already` : ''}`);
      }
      return;
    }
    case 'remove': {
      const store = OptOutStore.open(path, ctx);
      const { removed, absent } = await store.remove(numbers().map((number) => ({ number, source: 'manual', ...(opts.note !== undefined ? { evidence: { note: opts.note } } : {}) })), writer);
      // Still out for every account (the _all store), whatever else either file holds.
      const stillOut = OptOutStore.open(optOutStorePath(state, NO_ACCOUNT), ctx);
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ store: path, removed: removed.map((e) => e.number), absent, stillOptedOut: [...removed.map((e) => e.number), ...absent].filter((n) => stillOut.has(n)) }, null, 2)}\n`);
        return;
      }
      for (const e of removed) ui.success(`${e.number}: taken off the opt-outs of ${scope}; it may be messaged again`);
      for (const n of absent) ui.info(`${n}: was not opted out in ${scope}`);
      for (const n of [...removed.map((e) => e.number), ...absent]) {
        if (stillOut.has(n)) ui.warn(`${n} is still opted out for every account (the ${NO_ACCOUNT} store): msgr optout remove ${n} --all-accounts`);
      }
      return;
    }
    case 'possible': {
      if (opts.accept.length === 0 && opts.dismiss.length === 0) {
        const pending = openOptOuts(state, account, ctx).pending();
        if (opts.json) {
          ctx.stdout.write(`${JSON.stringify({ account: account ?? null, possible: pending.map(possibleJson) }, null, 2)}\n`);
          return;
        }
        for (const p of pending) ctx.stdout.write(`${p.number}  ${describePossible(p)}\n`);
        const flag = account !== undefined ? ` --account ${shellQuote(account)}` : opts.allAccounts ? ' --all-accounts' : '';
        if (pending.length > 0) ui.info(`${pending.length} possible opt-out${pending.length === 1 ? '' : 's'} to decide for ${scope}: sends to ${pending.length === 1 ? 'its number' : 'their numbers'} stop until then. Decide with msgr optout possible --accept NUMBER${flag} (an opt-out) or --dismiss NUMBER${flag} (not one).`);
        else ui.info(`no possible opt-outs to decide for ${scope}`);
        return;
      }
      const store = OptOutStore.open(path, ctx);
      const accepted = await store.decide(numbers(opts.accept), 'accept', writer, opts.note);
      const dismissed = await store.decide(numbers(opts.dismiss), 'dismiss', writer, opts.note);
      const none = [...accepted.none, ...dismissed.none];
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ store: path, accepted: accepted.decided.map((p) => p.number), dismissed: dismissed.decided.map((p) => p.number), notPossible: none }, null, 2)}\n`);
      } else {
        for (const p of accepted.decided) ui.success(`${p.number}: opted out (${describePossible(p)})`);
        for (const p of dismissed.decided) ui.success(`${p.number}: not an opt-out; sends to it go on`);
      }
      for (const n of none) ui.warn(`${n} has no possible opt-out to decide in ${scope}${store.has(n) ? ' (it is opted out)' : ''}: nothing was changed for it`);
      return;
    }
    case 'repair': {
      const { repairStore } = await import('../../optouts/repair.js');
      const r = await repairStore(path, writer, country);
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ store: path, optedOut: r.numbers.map((n) => ({ line: n.line, number: n.number, already: n.already })), setAside: r.setAside, setAsideFile: r.setAsideFile ?? null, backup: r.backup ?? null }, null, 2)}\n`);
        return;
      }
      if (r.backup === undefined) {
        ui.info(`nothing to repair: every line of ${path} is a record`);
        return;
      }
      for (const n of r.numbers) ui.success(`line ${n.line}: ${n.number} ${n.already ? 'was opted out already' : 'is opted out now (typed into the store by hand)'}`);
      for (const a of r.setAside) ui.warn(`line ${a.line} set aside (${a.why}): ${JSON.stringify(a.text.slice(0, 60))}`);
      ui.info(`repaired ${path}${r.setAsideFile !== undefined ? `; lines set aside are in ${r.setAsideFile}` : ''}; the store as it was is kept as ${r.backup}`);
      return;
    }
    case 'list': {
      const out = listEntries(state, account);
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ account: account ?? null, stores: out.files, numbers: out.entries.map(([e, f]) => entryJson(e, f)) }, null, 2)}\n`);
        return;
      }
      // An entry's evidence is a stranger's reply (and the store a file anyone may have edited): made visible.
      for (const [e, f] of out.entries) ctx.stdout.write(`${wrap(showControls(`${e.number}  ${describe(e)}${f !== path ? ` [${NO_ACCOUNT}]` : ''}`), lineWidth(ctx.stdout), { hang: e.number.length + 2 })}\n`);
      ui.info(`${out.entries.length} number${out.entries.length === 1 ? '' : 's'} opted out for ${scope}${account !== undefined ? ` (with those for every account, marked [${NO_ACCOUNT}])` : ''}`);
      return;
    }
    case 'export':
      exportStore(ctx, ui, state, account, opts);
      return;
    case 'violations': {
      const { runViolations } = await import('./violations.js');
      // Without an account named (or with --all-accounts): every account's sends, each against its own store.
      await runViolations(ctx, ui, { account, sandbox: opts.sandbox, json: opts.json });
      return;
    }
    case 'check': {
      const all = openOptOuts(state, account, ctx);
      const results = numbers().map((n) => ({ number: n, entry: all.get(n) }));
      if (opts.json) {
        ctx.stdout.write(`${JSON.stringify({ account: account ?? null, numbers: results.map((r) => ({ number: r.number, optedOut: r.entry !== undefined, ...(r.entry !== undefined ? { since: r.entry.since, reason: r.entry.reason, source: r.entry.source, evidence: r.entry.evidence ?? null } : {}) })) }, null, 2)}\n`);
        return;
      }
      for (const r of results) ctx.stdout.write(`${wrap(showControls(`${r.number}  ${r.entry !== undefined ? describe(r.entry) : 'not opted out'}`), lineWidth(ctx.stdout), { hang: r.number.length + 2 })}\n`);
      return;
    }
    default:
      throw new UsageError(`unknown subcommand ${sub}`);
  }
}

/** The account's entries, then those of the store for every account it does not have. */
function listEntries(state: string, account: string | undefined): { files: string[]; entries: Array<[OptOutEntry, string]> } {
  const own = optOutStorePath(state, account);
  const files = [...new Set([own, optOutStorePath(state, NO_ACCOUNT)])];
  const seen = new Set<string>();
  const entries: Array<[OptOutEntry, string]> = [];
  for (const [i, f] of files.entries()) {
    for (const e of refuseDamage(OptOutStore.open(f), i === 0 ? account : undefined).entries()) {
      if (seen.has(e.number)) continue;
      seen.add(e.number);
      entries.push([e, f]);
    }
  }
  return { files, entries };
}

function possibleJson(p: PossibleEntry): Record<string, unknown> {
  return { number: p.number, since: p.since, source: p.source, replies: p.replies, evidence: p.evidence ?? null };
}

function csvCell(s: string): string {
  return /[",\r\n]/.test(s) || /^[=+\-@\t]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** What sending leaves out for the account (its store and the one for every account). */
function exportStore(ctx: Context, ui: Ui, state: string, account: string | undefined, opts: OptoutOptions): void {
  const { entries } = listEntries(state, account);
  let text: string;
  if (opts.json) text = `${JSON.stringify({ account: account ?? null, numbers: entries.map(([e]) => e.number) }, null, 2)}\n`;
  else if (opts.format === 'jsonl') text = entries.map(([e, f]) => `${JSON.stringify(entryJson(e, f))}\n`).join('');
  // A number with a leading + is a formula to a spreadsheet: quoted, as send-bulk's reports do.
  else if (opts.format === 'csv') text = `number,since,reason,source,evidence\n${entries.map(([e]) => [e.number, e.since, e.reason, e.source, e.evidence?.text ?? e.evidence?.note ?? e.evidence?.code ?? ''].map(csvCell).join(',')).join('\n')}${entries.length > 0 ? '\n' : ''}`;
  else text = entries.map(([e]) => `${e.number}\n`).join('');
  if (opts.out === undefined) {
    ctx.stdout.write(text);
  } else {
    const file = resolve(ctx.cwd, opts.out);
    const aside = `${file}.${ctx.pid}.new`;
    try {
      writeFileSync(aside, text, { mode: 0o600 });
      renameSync(aside, file);
    } catch (err) {
      throw new UsageError(`--out: cannot write ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { hint: 'Give a path in a folder you can write to.' });
    }
  }
  ui.info(`${entries.length} number${entries.length === 1 ? '' : 's'} exported${opts.out !== undefined ? ` to ${opts.out}` : ''}`);
}
