// Options every sending command takes (docs/commands/msgr-send.md: "Connection").
// Commander only: the values are checked when the command runs (commands/option-values.ts).
import { Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

/** Repeated options append (variadic ones too); comma lists are split when the command runs. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Whether an option takes several values: given more than once, each is kept (its help says "repeatable"). */
export function isRepeatable(option: Option): boolean {
  return option.variadic || option.parseArg === collect;
}

/** The usage error of an option that takes one value, given twice (main.ts words its hint). */
export const REPEATED_OPTION = 'msgr.repeatedOption';

/**
 * An option that takes one value, given twice, is refused (exit 2) in every command, before the
 * command runs (docs/contract.md: "Precedence"): Commander would keep the last without a word, and two
 * `--text-file`s or two `--account`s are a mistake to be told, not a choice to be guessed. Options
 * that take several values are declared with `collect` (or as variadic), and say "repeatable" in
 * their help; a flag without a value (`--json`) given twice asks the same thing twice.
 */
export function refuseRepeatedOptions(cmd: Command): void {
  // Said once the whole command line is read, so that a --json after it gets its document.
  let repeated: string | undefined;
  for (const option of cmd.options) {
    if (isRepeatable(option) || (!option.required && !option.optional)) continue;
    const key = option.attributeName();
    // Before Commander's own listener stores the value: a value already from the command line is the first.
    // The values are not repeated back: one may be a secret (--token).
    (cmd as unknown as NodeJS.EventEmitter).prependListener(`option:${option.name()}`, () => {
      if (repeated === undefined && cmd.getOptionValueSource(key) === 'cli') repeated = `error: option '${option.flags}' was given twice: it takes one value, and msgr does not choose between them`;
    });
  }
  cmd.hook('preAction', () => {
    if (repeated !== undefined) cmd.error(repeated, { code: REPEATED_OPTION, exitCode: 2 });
  });
  for (const sub of cmd.commands) refuseRepeatedOptions(sub);
}

/**
 * An option's environment variable (`new Option(...).env(NAME)`) is read from the Context's env,
 * never from the process's (docs/design.md: "Choices"), in every command. Commander reads
 * process.env itself: its "parse env" step emits `optionEnv:<name>` with the process's value, and
 * its own listener of that event stores it. That listener is taken off, so the process's value
 * goes nowhere, and called before the action with the Context's value under Commander's own
 * condition (no value, or one from a default, the config, an implied value or the environment):
 * the flag, then the variable, then the default; the same parsing, errors ("from env 'NAME'")
 * and source ('env'); and the help still says "(env: NAME)".
 * Commander checks mandatory options, conflicts and implications before the action, so none of
 * them may take a variable: refused when the program is built.
 */
export function optionEnvFromContext(program: Command, env: Context['env']): void {
  interface Taken {
    readonly option: Option;
    /** Commander's own listeners of the option's `optionEnv:` event. */
    readonly store: (value?: string) => void;
  }
  const fromEnv = new Map<Command, Taken[]>();
  const take = (cmd: Command): void => {
    // A Command is an EventEmitter (node_modules/commander/Readme.md, "Custom event listeners"), which its typings omit.
    const emitter = cmd as unknown as NodeJS.EventEmitter;
    const taken: Taken[] = [];
    for (const option of cmd.options) {
      if (option.envVar === undefined) continue;
      const checked = option as Option & { conflictsWith: string[]; implied?: object };
      if (option.mandatory || checked.conflictsWith.length > 0 || checked.implied !== undefined || cmd.options.some((o) => (o as typeof checked).conflictsWith.includes(option.attributeName()))) {
        throw new Error(`${option.flags} takes ${option.envVar}: a mandatory option, or one that conflicts or implies, cannot take a variable (optionEnvFromContext)`);
      }
      const event = `optionEnv:${option.name()}`;
      const listeners = emitter.listeners(event) as Array<(value?: string) => void>;
      emitter.removeAllListeners(event);
      taken.push({ option, store: (value) => { for (const listener of listeners) listener.call(cmd, value); } });
    }
    if (taken.length > 0) fromEnv.set(cmd, taken);
    for (const sub of cmd.commands) take(sub);
  };
  take(program);
  program.hook('preAction', (_program, action) => {
    // From the program down to the command run, the order in which Commander parses them.
    const chain: Command[] = [];
    for (let c: Command | null = action; c !== null; c = c.parent) chain.unshift(c);
    for (const cmd of chain) {
      for (const { option, store } of fromEnv.get(cmd) ?? []) {
        const value = env[option.envVar ?? ''];
        if (value === undefined) continue;
        const key = option.attributeName();
        const source = cmd.getOptionValueSource(key);
        if (cmd.getOptionValue(key) !== undefined && !['default', 'config', 'implied', 'env'].includes(source ?? '')) continue;
        // A flag without a value (a boolean) only asks whether the variable is set, as in Commander.
        store(option.required || option.optional ? value : undefined);
      }
    }
  });
}

/**
 * `--api-key` does not exist on purpose; people (and other CLIs' habits) reach for it, so it is
 * answered with why and what to use instead, never with the value it was given.
 */
export function refuseApiKeyFlag(cmd: Command, instead = 'MSGR_API_KEY=... in the environment, --api-key-file PATH, --api-key-stdin, or a profile (msgr profile add)'): Command {
  // Refused once the command line is parsed (before the action), so that the error knows about
  // a --json given after it; the option itself takes the value so that nothing else does.
  cmd.addOption(new Option('--api-key [key]').hideHelp());
  return cmd.hook('preAction', (_cmd, action) => {
    if (action.getOptionValue('apiKey') === undefined) return;
    throw new UsageError('there is no --api-key flag: a key on the command line ends up in shell history and in `ps` for every user of the machine', {
      hint: `Use ${instead}. Nothing was sent or saved, and the value given was not kept.`,
    });
  });
}

export function addConnectionOptions(cmd: Command, options: { send?: boolean; webhook?: boolean } = {}): Command {
  refuseApiKeyFlag(cmd);
  cmd
    .optionsGroup('Connection:')
    .option('-p, --profile <name>', 'profile to use (env MSGR_PROFILE; else the default profile)')
    .option('--base-url <url>', 'regional API base URL; /v2/messages is appended (env MSGR_BASE_URL)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)')
    .option('--api-key-file <path>', 'read the API key from a file (env MSGR_API_KEY also works)')
    .option('--api-key-stdin', 'read the API key from the first line of stdin')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .option('--ca-file <path>', 'extra trusted CA certificates, PEM, added to the default roots (env MSGR_CA_FILE; profile ca-file)')
    .option('--sandbox', 'send to a built-in local emulator; nothing is delivered');
  // The emulator's events (docs/events.md: "The sandbox's events"), for the commands that send messages.
  if (options.webhook === true) cmd.option('--webhook-url <url>', 'with --sandbox: post its delivery events to this URL (env MSGR_WEBHOOK_URL, which keeps a listener\'s token out of `ps`: MSGR_WEBHOOK_URL="$(msgr listen --print-url)")');
  // `doctor` resolves the same settings but sends nothing: no confirmation to skip.
  if (options.send !== false) cmd.option('-y, --yes', "skip the profile's confirmation prompt (needed without a TTY)");
  return cmd
    .optionsGroup('Output:')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show requests and responses (API key redacted) and stack traces');
}

/** The message flags `send` and `send-bulk` share. */
export function addMessageOptions(cmd: Command): Command {
  return cmd
    .optionsGroup('Message:')
    .option('--channel <channel>', 'SMS or RCS (default: the profile\'s, else SMS)')
    .option('--from <sender>', 'sender id: a number, or 1-11 letters/digits for SMS; an agent name for RCS')
    .option('--text <text>', 'message text')
    .option('--text-file <path>', "read the message text from a file ('-' reads stdin); UTF-8, or UTF-16 with a BOM; line breaks and blank lines at its end are not sent")
    .option('--text-encoding <name>', 'encoding of a --text-file without a BOM: utf8 (default), latin1 (Windows-1252), utf16le, utf16be')
    .option('--template <id>', 'template id (body.templateId) instead of text')
    .option('--meta <key=value>', 'message metaData entry (repeatable)', collect)
    .option('--name <name>', 'name of the message or send')
    .option('--character-set <set>', 'characterSet field, passed through')
    .option('--message-type <type>', 'messageType field, passed through')
    .option('--validity <when>', 'ISO 8601 time, or a duration from now: 90s, 30m, 2h, 3d')
    .addOption(new Option('--default-country <CC>', 'ISO country code for national numbers, e.g. GB (env MSGR_DEFAULT_COUNTRY)').helpGroup('Recipients:'))
    .addOption(new Option('--allow-unlisted-numbers', "send to numbers in no range of the known numbering plan (ranges newer than msgr's phone data), never one a digit short or long; default: refused").helpGroup('Recipients:'))
    .addOption(new Option('--include-opted-out', "send to numbers in the account's opt-out store too (needs --yes); default: left out, counted as suppressed").helpGroup('Recipients:'))
    .option('--dry-run', 'validate and print the request; send nothing');
}

