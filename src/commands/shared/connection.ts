// argv → the connection options every command that talks to the API takes (declared in
// flags.ts, addConnectionOptions): profile, base URL, account, key, timeout, CA file, sandbox, and
// the output flags. Hand-written rather than zod, as option-values.ts says why.
import { UsageError } from '../../errors.js';
import { verbosity } from '../../output/ui.js';
import { bool, parseTimeout, str, type Raw } from './option-values.js';

export interface ConnectionOptions {
  profile?: string | undefined;
  baseUrl?: string | undefined;
  account?: string | undefined;
  apiKeyFile?: string | undefined;
  apiKeyStdin?: boolean | undefined;
  /** Milliseconds; from --timeout seconds, default 30 s. */
  timeout: number;
  caFile?: string | undefined;
  sandbox?: boolean | undefined;
  /** With --sandbox: where the emulator posts its events. */
  webhookUrl?: string | undefined;
  json?: boolean | undefined;
  quiet?: boolean | undefined;
  verbose?: boolean | undefined;
  yes?: boolean | undefined;
}

export function parseConnectionOptions(raw: Raw): ConnectionOptions {
  verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  const webhookUrl = str(raw, 'webhookUrl');
  if (webhookUrl !== undefined && bool(raw, 'sandbox') !== true) {
    throw new UsageError('--webhook-url needs --sandbox: it is where the built-in emulator posts its events', { hint: 'Add --sandbox, or register the URL with your provider for real events (docs/events.md).' });
  }
  return {
    profile: str(raw, 'profile'),
    baseUrl: str(raw, 'baseUrl'),
    account: str(raw, 'account'),
    apiKeyFile: str(raw, 'apiKeyFile'),
    apiKeyStdin: bool(raw, 'apiKeyStdin'),
    timeout: parseTimeout(str(raw, 'timeout')),
    caFile: str(raw, 'caFile'),
    sandbox: bool(raw, 'sandbox'),
    ...(webhookUrl !== undefined ? { webhookUrl } : {}),
    json: bool(raw, 'json'),
    quiet: bool(raw, 'quiet'),
    verbose: bool(raw, 'verbose'),
    yes: bool(raw, 'yes'),
  };
}
