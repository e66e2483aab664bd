// The command tree as data, for the generated manual (docs/commands/, the man pages): every
// visible command and subcommand, read from Commander with the same Help methods `--help` uses,
// so a term or a description exists once, in the command's definition (src/commands/<cmd>/index.ts).
import type { Command } from 'commander';

export interface Entry {
  /** `-p, --profile <name>`, `<file>`. */
  readonly term: string;
  /** As `--help` prints it, with Commander's own additions (choices, env, default). */
  readonly description: string;
}

export interface Group {
  /** `Connection`, or `Options` for options given no group. */
  readonly heading: string;
  readonly entries: readonly Entry[];
}

/** A part of the text a command adds after its options (`addHelpText('after', …)`). */
export type Block =
  | { readonly kind: 'prose'; readonly lines: readonly string[] }
  | { readonly kind: 'code'; readonly lines: readonly string[] };

export interface Section {
  /** `Examples`, `Install`; undefined for the text before the first heading. */
  readonly heading: string | undefined;
  readonly blocks: readonly Block[];
}

export interface CommandDoc {
  /** `msgr profile add`. */
  readonly name: string;
  /** `msgr-profile-add`: the man page's and the Markdown page's name. */
  readonly slug: string;
  /** `msgr profile add [options] <name>`. */
  readonly usage: string;
  readonly description: string;
  readonly aliases: readonly string[];
  readonly args: readonly Entry[];
  readonly groups: readonly Group[];
  readonly subcommands: readonly CommandDoc[];
  readonly sections: readonly Section[];
  readonly parent: CommandDoc | undefined;
}

const hidden = (c: Command): boolean => (c as unknown as { _hidden?: boolean })._hidden === true;

/** Every visible command under (and including) `cmd`, parents before their subcommands. */
export function flatten(doc: CommandDoc): CommandDoc[] {
  return [doc, ...doc.subcommands.flatMap(flatten)];
}

/** The tree under `cmd`: new commands are found by walking it, never by a list kept here. */
export function describeCommand(cmd: Command, parent?: CommandDoc): CommandDoc {
  const help = cmd.createHelp();
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  const groups = new Map<string, Entry[]>();
  // Groups in the order their first option was declared, as Help.formatHelp lists them.
  for (const o of cmd.options) if (!groups.has(heading(o.helpGroupHeading))) groups.set(heading(o.helpGroupHeading), []);
  for (const o of help.visibleOptions(cmd)) {
    const key = heading(o.helpGroupHeading);
    const list = groups.get(key) ?? [];
    list.push({ term: help.optionTerm(o), description: help.optionDescription(o) });
    groups.set(key, list);
  }
  const subcommands: CommandDoc[] = [];
  const doc: CommandDoc = {
    name: names.join(' '),
    slug: names.join('-'),
    usage: help.commandUsage(cmd),
    description: help.commandDescription(cmd),
    aliases: cmd.aliases(),
    args: help.visibleArguments(cmd).map((a) => ({ term: help.argumentTerm(a), description: help.argumentDescription(a) })),
    groups: [...groups].filter(([, entries]) => entries.length > 0).map(([h, entries]) => ({ heading: h, entries })),
    subcommands,
    sections: parseHelpText(afterHelp(cmd)),
    parent,
  };
  // Not Help.visibleCommands: it adds Commander's implicit `help` subcommand, which has no page.
  for (const c of cmd.commands) if (!hidden(c)) subcommands.push(describeCommand(c, doc));
  return doc;
}

function heading(h: string | undefined): string {
  return (h ?? 'Options:').replace(/:$/, '');
}

/** The text `addHelpText('after', …)` adds, collected by emitting the event Commander emits. */
function afterHelp(cmd: Command): string {
  let text = '';
  // A Command is an EventEmitter (addHelpText listens for this event), which its typings omit.
  (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => (text += s) });
  return text;
}

/**
 * The after-help text in sections: a line such as `Examples:` alone heads a section; lines
 * indented under it (or any indented run of lines) are code, kept as written; other lines are
 * prose, one paragraph per run of lines.
 */
export function parseHelpText(text: string): Section[] {
  const sections: Array<{ heading: string | undefined; blocks: Block[] }> = [{ heading: undefined, blocks: [] }];
  let current: { kind: Block['kind']; lines: string[] } | undefined;
  const close = (): void => {
    if (current !== undefined) sections[sections.length - 1]?.blocks.push(current);
    current = undefined;
  };
  for (const raw of text.replace(/\s+$/, '').split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (line === '') {
      close();
      continue;
    }
    if (/^[A-Z][^:]*:$/.test(line) && line.length < 40) {
      close();
      sections.push({ heading: line.slice(0, -1), blocks: [] });
      continue;
    }
    const kind = /^\s/.test(line) ? 'code' : 'prose';
    if (current?.kind !== kind) {
      close();
      current = { kind, lines: [] };
    }
    current.lines.push(line);
  }
  close();
  // Code as written, less the indentation all its lines share.
  for (const s of sections) {
    s.blocks = s.blocks.map((b) => {
      if (b.kind !== 'code') return b;
      const indent = Math.min(...b.lines.map((l) => /^\s*/.exec(l)?.[0].length ?? 0));
      return { kind: 'code', lines: b.lines.map((l) => l.slice(indent)) };
    });
  }
  return sections.filter((s) => s.heading !== undefined || s.blocks.length > 0);
}
