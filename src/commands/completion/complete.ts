// What to offer at the cursor, read from the running Commander tree: commands, subcommands and
// options as they are registered (so a completion script never goes stale), plus the values
// msgr knows for some options and arguments. Pure: the shell glue is in scripts.ts, and the
// profile names and country codes are passed in.
import type { Command, Option } from 'commander';
import { allTopics } from '../../help-topics.js';
import { collect } from '../shared/flags.js';

export interface Candidate {
  readonly value: string;
  readonly description: string;
}

export type Completion = { readonly kind: 'values'; readonly candidates: readonly Candidate[] } | { readonly kind: 'files' };

export interface CompletionSources {
  readonly profileNames: () => readonly string[];
  readonly countries: () => readonly string[];
}

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

// Values each of these options accepts, as its parser in the run modules accepts them
// (test/unit/commands/completion/values-accepted.test.ts checks them against those parsers).
export const CHANNELS = ['SMS', 'RCS'];
export const ENCODINGS = ['utf8', 'latin1', 'utf16le', 'utf16be'];
export const DELIMITERS = [',', ';', 'tab', '|'];
export const SANDBOX_HOSTS = ['127.0.0.1', '::1', 'localhost'];
export const PROFILE_SETTINGS = ['account', 'base-url', 'from', 'channel', 'default-country', 'confirm', 'api-key', 'ca-file', 'window', 'tz', 'price-file'];
/** --tz: the rules, and the zones this Node knows (Intl, full ICU). */
export const TZ_RULES = ['auto', 'column:'];
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const FILE_OPTIONS = new Set(['--text-file', '--input', '--api-key-file', '--ca-file', '--report', '--journal', '--exclude', '--record', '--price-file']);
// `profile set NAME ca-file` and `price-file` take a file too (see positionalValues).
// Profile subcommands whose first argument is an existing profile.
const PROFILE_ARG = new Set(['set', 'unset', 'show', 'use', 'remove', 'rm']);

const plain = (values: readonly string[], description = ''): Candidate[] => values.map((value) => ({ value, description }));

function optionValues(long: string, cmdPath: string, s: CompletionSources): Completion {
  if (FILE_OPTIONS.has(long)) return { kind: 'files' };
  switch (long) {
    case '--channel':
      return { kind: 'values', candidates: plain(CHANNELS) };
    case '--encoding':
    case '--text-encoding':
      return { kind: 'values', candidates: plain(ENCODINGS) };
    case '--delimiter':
      return { kind: 'values', candidates: plain(DELIMITERS) };
    case '--profile':
      return { kind: 'values', candidates: plain(s.profileNames(), 'profile') };
    case '--default-country':
      return { kind: 'values', candidates: plain(s.countries()) };
    case '--tz':
      return { kind: 'values', candidates: plain([...(cmdPath === 'send-bulk' ? TZ_RULES : TZ_RULES.slice(0, 1)), ...Intl.supportedValuesOf('timeZone')]) };
    case '--window':
      return { kind: 'values', candidates: plain(['08:00-21:00', '09:00-20:00', 'mon-fri:09:00-20:00', 'sat:10:00-16:00']) };
    case '--host':
      return { kind: 'values', candidates: cmdPath === 'sandbox' ? plain(SANDBOX_HOSTS) : [] };
    default:
      return { kind: 'values', candidates: [] };
  }
}

function findOption(cmd: Command, flag: string): Option | undefined {
  return cmd.options.find((o) => o.long === flag || o.short === flag);
}

const takesValue = (o: Option): boolean => o.required || o.optional;
const repeatable = (o: Option): boolean => o.variadic || o.parseArg === collect;
const visible = (c: Command): boolean => !(c as unknown as { _hidden?: boolean })._hidden;

function path(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent != null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Candidates for the last of `words` (the words after `msgr`, the last one being the word at the
 * cursor, possibly empty). Candidates start with that word.
 */
export function complete(program: Command, words: readonly string[], sources: CompletionSources): Completion {
  let cmd = program;
  const positionals: string[] = [];
  const used = new Set<Option>();
  let pending: Option | undefined;
  let dashDash = false;
  const before = words.slice(0, -1);
  for (const w of before) {
    if (pending !== undefined) {
      pending = undefined;
      continue;
    }
    if (!dashDash && w === '--') {
      dashDash = true;
      continue;
    }
    if (!dashDash && w.startsWith('-') && w !== '-') {
      const eq = w.indexOf('=');
      const opt = findOption(cmd, eq > 0 ? w.slice(0, eq) : w);
      if (opt !== undefined) {
        used.add(opt);
        if (eq < 0 && opt.required) pending = opt;
      }
      continue;
    }
    const sub = positionals.length === 0 && !dashDash ? cmd.commands.find((c) => c.name() === w || c.aliases().includes(w)) : undefined;
    if (sub !== undefined) {
      cmd = sub;
      used.clear();
      continue;
    }
    positionals.push(w);
  }
  const cur = words.at(-1) ?? '';
  const cmdPath = path(cmd);
  const starting = (c: Completion): Completion => (c.kind === 'files' ? c : { kind: 'values', candidates: c.candidates.filter((x) => x.value.startsWith(cur)) });

  if (pending?.long !== undefined) return starting(optionValues(pending.long, cmdPath, sources));
  if (!dashDash && cur.startsWith('--') && cur.includes('=')) {
    const flag = cur.slice(0, cur.indexOf('='));
    const opt = findOption(cmd, flag);
    if (opt?.long === undefined || !takesValue(opt)) return { kind: 'values', candidates: [] };
    const values = optionValues(opt.long, cmdPath, sources);
    if (values.kind === 'files') return values;
    return starting({ kind: 'values', candidates: values.candidates.map((c) => ({ value: `${flag}=${c.value}`, description: c.description })) });
  }
  if (!dashDash && cur.startsWith('-')) {
    const options = cmd.options.filter((o) => !o.hidden && (!used.has(o) || repeatable(o)));
    const candidates = options.map((o) => ({ value: o.long ?? o.short ?? '', description: o.description }));
    candidates.push({ value: '--help', description: 'show help' });
    return starting({ kind: 'values', candidates });
  }
  return starting(positionalValues(program, cmd, cmdPath, positionals, sources));
}

function positionalValues(program: Command, cmd: Command, cmdPath: string, positionals: readonly string[], s: CompletionSources): Completion {
  const n = positionals.length;
  const subcommands = (c: Command): Candidate[] => c.commands.filter(visible).map((x) => ({ value: x.name(), description: x.description() }));
  if (cmd.commands.length > 0 && n === 0) return { kind: 'values', candidates: subcommands(cmd) };
  const words = cmdPath.split(' ');
  if (words[0] === 'profile' && PROFILE_ARG.has(words[1] ?? '')) {
    if (n === 0) return { kind: 'values', candidates: plain(s.profileNames(), 'profile') };
    if (n === 1 && (words[1] === 'set' || words[1] === 'unset')) return { kind: 'values', candidates: plain(PROFILE_SETTINGS) };
    if (n === 2 && words[1] === 'set') {
      const setting = positionals[1];
      if (setting === 'channel') return { kind: 'values', candidates: plain(CHANNELS) };
      if (setting === 'default-country') return { kind: 'values', candidates: plain(s.countries()) };
      if (setting === 'confirm') return { kind: 'values', candidates: plain(['true', 'false']) };
      if (setting === 'ca-file' || setting === 'price-file') return { kind: 'files' };
    }
    return { kind: 'values', candidates: [] };
  }
  switch (cmdPath) {
    case 'send-bulk':
      return n === 0 ? { kind: 'files' } : { kind: 'values', candidates: [] };
    case 'completion':
      return { kind: 'values', candidates: n === 0 ? plain(SHELLS) : [] };
    case 'api':
      if (n === 0) return { kind: 'values', candidates: [...plain(METHODS, 'HTTP method'), { value: '/v2/messages', description: 'send messages' }] };
      if (n === 1 && METHODS.includes(positionals[0] ?? '')) return { kind: 'values', candidates: [{ value: '/v2/messages', description: 'send messages' }] };
      return { kind: 'values', candidates: [] };
    case 'help': {
      let target = program;
      for (const w of positionals) {
        const next = target.commands.find((c) => c.name() === w || c.aliases().includes(w));
        if (next === undefined) return { kind: 'values', candidates: [] };
        target = next;
      }
      const topics = n === 0 ? allTopics().map(([value, description]) => ({ value, description })) : [];
      return { kind: 'values', candidates: [...subcommands(target).filter((c) => c.value !== 'help'), ...topics] };
    }
    default:
      return { kind: 'values', candidates: [] };
  }
}

/** One line per candidate in the form each shell's script reads. */
export function formatCompletion(shell: Shell, c: Completion): string {
  if (c.kind === 'files') return ':file\n';
  const oneLine = (s: string): string => s.replace(/[\t\r\n]+/g, ' ').trim();
  const lines = c.candidates.map(({ value, description }) => {
    const d = oneLine(description);
    switch (shell) {
      case 'bash':
        return value;
      case 'zsh':
        // _describe splits "value:description" at the first unescaped colon.
        return d === '' ? value.replace(/[\\:]/g, '\\$&') : `${value.replace(/[\\:]/g, '\\$&')}:${d}`;
      case 'fish':
      case 'powershell':
        return d === '' ? value : `${value}\t${d}`;
    }
  });
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/**
 * Bash splits `--channel=R` into `--channel`, `=`, `R` (COMP_WORDBREAKS), and completes only the
 * part after the `=`: glue the words back, and answer with values alone.
 */
export function bashWords(words: readonly string[]): { words: string[]; valueOnly: boolean } {
  const out: string[] = [];
  let valueOnly = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    const last = i === words.length - 1;
    if (w === '=' && out.length > 0 && (out.at(-1) ?? '').startsWith('--') && !(out.at(-1) ?? '').includes('=')) {
      out[out.length - 1] = `${out.at(-1) ?? ''}=`;
      if (last) valueOnly = true;
      continue;
    }
    if ((out.at(-1) ?? '').endsWith('=') && (out.at(-1) ?? '').startsWith('--') && words[i - 1] === '=') {
      out[out.length - 1] = `${out.at(-1) ?? ''}${w}`;
      if (last) valueOnly = true;
      continue;
    }
    out.push(w);
  }
  return { words: out, valueOnly };
}
