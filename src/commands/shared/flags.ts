// Options every sending command takes (README: "Options every sending command takes").
// Commander only: the values are checked when the command runs (commands/option-values.ts).
import type { Command } from 'commander';

/** Repeated options append (variadic ones too); comma lists are split when the command runs. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function addConnectionOptions(cmd: Command, options: { send?: boolean } = {}): Command {
  cmd
    .option('-p, --profile <name>', 'profile to use (env MSGR_PROFILE; else the default profile)')
    .option('--base-url <url>', 'regional API base URL; /v2/messages is appended (env MSGR_BASE_URL)')
    .option('--account <ref>', 'accountReference (env MSGR_ACCOUNT_REFERENCE)')
    .option('--api-key-file <path>', 'read the API key from a file (env MSGR_API_KEY also works)')
    .option('--api-key-stdin', 'read the API key from the first line of stdin')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .option('--ca-file <path>', 'extra trusted CA certificates, PEM, added to the default roots (env MSGR_CA_FILE; profile ca-file)')
    .option('--sandbox', 'send to a built-in local emulator; nothing is delivered')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('-q, --quiet', 'print nothing on stderr but warnings and errors')
    .option('-v, --verbose', 'show requests and responses (API key redacted) and stack traces');
  // `doctor` resolves the same settings but sends nothing: no confirmation to skip.
  return options.send === false ? cmd : cmd.option('-y, --yes', "skip the profile's confirmation prompt (needed without a TTY)");
}

/** The message flags `send` and `send-bulk` share. */
export function addMessageOptions(cmd: Command): Command {
  return cmd
    .option('--channel <channel>', 'SMS or RCS (default: the profile\'s, else SMS)')
    .option('--from <sender>', 'sender id: a number, or 1-11 letters/digits for SMS; an agent name for RCS')
    .option('--text <text>', 'message text')
    .option('--text-file <path>', "read the message text from a file ('-' reads stdin); UTF-8, or UTF-16 with a BOM")
    .option('--text-encoding <name>', 'encoding of a --text-file without a BOM: utf8 (default), latin1 (Windows-1252), utf16le, utf16be')
    .option('--template <id>', 'template id (body.templateId) instead of text')
    .option('--meta <key=value>', 'message metaData entry (repeatable)', collect)
    .option('--name <name>', 'name of the message or send')
    .option('--character-set <set>', 'characterSet field, passed through')
    .option('--message-type <type>', 'messageType field, passed through')
    .option('--validity <when>', 'ISO 8601 time, or a duration from now: 90s, 30m, 2h, 3d')
    .option('--default-country <CC>', 'ISO country code for national numbers, e.g. GB')
    .option('--dry-run', 'validate and print the request; send nothing');
}

