// `msgr listen --optouts`: what the listener does with replies and permanent failures before it
// answers (docs/optouts.md: "From replies"). The change reaches the store (or the plain list) and
// its disk before the 2xx; one that cannot be written is answered 503 like an event that cannot,
// and the sender's retry, a duplicate by then, gets its opt-out through. A possible opt-out, and a
// reply whose sender is no number, are warnings on stderr (under -q too): a person must act.
import type { CountryCode } from 'libphonenumber-js/max';
import type { Context } from '../../context.js';
import { StoreError } from '../../events/event-log.js';
import type { Received } from '../../events/receiver.js';
import type { OptOutNote } from '../../events/terminal.js';
import { keywords } from '../../optouts/keywords.js';
import { PlainList } from '../../optouts/plain-list.js';
import { optOutAction, type ReplyPolicy } from '../../optouts/replies.js';
import { describePossible, OptOutStore, OptOutWriteError, repairCommand, type OptOutChange, type StoreWriter } from '../../optouts/store.js';
import { checkCountry } from '../../message/numbers.js';
import { shellQuote } from '../../output/shell.js';
import { quoted } from '../../output/sanitize.js';
import type { ListenOptions } from './options.js';

export interface OptOutHook {
  /** The store's or the list's path, for the banner. */
  readonly where: string;
  readonly afterStore: (events: readonly Received[]) => Promise<void>;
  /** The note for an event's line, once (taken). */
  readonly noteFor: (recordId: string) => OptOutNote | undefined;
}

interface Sink {
  add(change: OptOutChange, writer: StoreWriter): Promise<boolean>;
  remove(change: OptOutChange, writer: StoreWriter): Promise<boolean>;
}

export interface OptOutSetup extends Pick<ListenOptions, 'stopWords' | 'startWords' | 'allowStart' | 'undeliverable' | 'permanentCodes' | 'defaultCountry'> {
  /** The account's store path, or a plain list's. */
  readonly path: string;
  readonly plain: boolean;
  /** The account's store, where possible opt-outs are kept (with a plain list too: it has no room for them). */
  readonly storePath: string;
  /** The account (undefined: none), for the commands a warning names. */
  readonly account: string | undefined;
  /** A line on stderr that -q does not hide. */
  readonly warn: (line: string) => void;
}

export function optOutHook(ctx: Context, setup: OptOutSetup): OptOutHook {
  const country: CountryCode | undefined = setup.defaultCountry !== undefined ? checkCountry(setup.defaultCountry, '--default-country') : undefined;
  const policy: ReplyPolicy = {
    words: keywords(setup.stopWords, setup.startWords),
    allowStart: setup.allowStart,
    undeliverable: setup.undeliverable,
    permanentCodes: new Set(setup.permanentCodes),
    defaultCountry: country,
  };
  let sink: Sink;
  // Read once here: a store that cannot be read stops the listener before it takes anything. Lines
  // that are not records do not: the listener records opt-outs whatever else the file holds, and
  // says so (a send is what the damage stops).
  const store = OptOutStore.open(setup.storePath, ctx);
  const damaged = store.damage.count + (store.cutShort !== undefined ? 1 : 0);
  const first = store.damage.lines[0]?.line ?? store.cutShort?.line;
  if (damaged > 0) setup.warn(`the opt-out store ${store.path} has ${damaged} line${damaged === 1 ? '' : 's'} that ${damaged === 1 ? 'is not a record' : 'are not records'} (line ${first ?? '?'} first): opt-outs are still recorded, but sends stop until it is repaired: ${repairCommand(setup.account)}`);
  if (setup.plain) {
    const list = new PlainList(setup.path);
    sink = { add: (c, w) => list.add(c.number, w), remove: (c, w) => list.remove(c.number, w) };
  } else {
    sink = {
      add: async (c, w) => (await store.add([c], w)).added.length > 0,
      remove: async (c, w) => (await store.remove([c], w)).removed.length > 0,
    };
  }
  const account = setup.account !== undefined ? ` --account ${shellQuote(setup.account)}` : ' --all-accounts';
  // Replay reads the account's events file, as this listener writes it.
  const replayAccount = setup.account !== undefined ? ` --account ${shellQuote(setup.account)}` : '';
  const writer: StoreWriter = { pid: ctx.pid, now: ctx.now, isProcessAlive: ctx.isProcessAlive, command: 'msgr listen' };
  const notes = new Map<string, OptOutNote>();
  return {
    where: setup.path,
    noteFor: (id) => {
      const note = notes.get(id);
      notes.delete(id);
      return note;
    },
    afterStore: async (events) => {
      for (const ev of events) {
        const action = optOutAction(ev.summary, ev.record.id, policy);
        if (action === undefined) continue;
        if (action.op === 'ignore') {
          notes.set(ev.record.id, action.why === 'start-not-allowed' ? 'start-ignored' : 'not-a-number');
          if (action.why === 'not-a-number') setup.warn(`a ${action.word === 'undeliverable' ? 'permanent failure' : `reply that reads as ${action.word === 'start' ? 'a start word' : action.word === 'possible' ? 'a possible opt-out' : 'an opt-out'}`} came from ${quoted(action.raw.slice(0, 40))}, which is not a phone number: nothing was recorded (${ev.record.id}; msgr listen replay --filter id=${ev.record.id}${replayAccount}). If it is one, add it by hand: msgr optout add NUMBER${account} --note "…"`);
          continue;
        }
        try {
          if (action.op === 'possible') {
            const { kept } = await store.possible([action.change], writer);
            const p = kept[0];
            notes.set(ev.record.id, p !== undefined ? 'possible' : 'already-opted-out');
            if (p !== undefined) setup.warn(`possible opt-out from ${p.number}: ${describePossible(p)}; sends to it stop until a person decides: msgr optout possible --accept ${p.number}${account} (an opt-out), or --dismiss ${p.number}${account} (not one)`);
          } else if (action.op === 'add') {
            const added = await sink.add(action.change, writer);
            notes.set(ev.record.id, added ? (action.why === 'undeliverable' ? 'undeliverable' : 'opted-out') : 'already-opted-out');
          } else {
            notes.set(ev.record.id, (await sink.remove(action.change, writer)) ? 'resubscribed' : 'not-opted-out');
          }
        } catch (err) {
          // The sender keeps the event and sends it again; by then it is a duplicate, and this runs again.
          if (err instanceof OptOutWriteError) throw new StoreError(err.code, err.message);
          throw new StoreError('EIO', `the opt-out could not be recorded: ${(err as Error).message}`);
        }
      }
    },
  };
}
