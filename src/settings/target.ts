// Where a send goes: the endpoint and key from the resolved settings, or the in-process sandbox
// for --sandbox. Shared by `send` and `send-bulk` so both refuse, hint and announce the same way.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { messagesEndpoint, versionInBase, versionInBaseError } from '../http/endpoint.js';
import { routeFor } from '../http/proxy.js';
import { msgrCommand, shellQuote } from '../output/shell.js';
import type { Ui } from '../output/ui.js';
import { checkApiKey, describeSource, type Resolved, type Settings } from './resolve.js';

export interface Target {
  readonly endpoint: URL;
  /** The base URL the endpoint is under (the sandbox's for --sandbox), for `msgr api`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** No proxy: the in-process sandbox is on loopback. */
  readonly direct: boolean;
  readonly sandbox: boolean;
}

export async function resolveTarget(ctx: Context, ui: Ui, settings: Settings, sandbox: boolean): Promise<Target> {
  let baseUrl = settings.baseUrl.value;
  let apiKey = settings.apiKey.value;
  if (sandbox) {
    const { startSandbox } = await import('../sandbox/server.js');
    apiKey ??= 'sandbox-key';
    const server = await startSandbox({ port: 0, apiKey });
    ctx.onExit(() => server.close());
    baseUrl = server.url;
    ui.info(ui.color.cyan(`sandbox: sending to the built-in emulator at ${server.url}; nothing will be delivered`));
  }
  if (baseUrl === undefined) {
    throw new UsageError('no base URL: msgr does not know which regional API to call', {
      hint: 'Give --base-url https://..., set MSGR_BASE_URL, add a profile (msgr profile add), or try --sandbox.',
    });
  }
  if (apiKey === undefined) {
    throw new UsageError('no API key', {
      hint: 'Set MSGR_API_KEY, or give --api-key-file PATH or --api-key-stdin, or save it in a profile (msgr profile add). It is never accepted as a plain flag, to keep it out of shell history and ps.',
    });
  }
  checkApiKey(apiKey, describeSource(settings.apiKey));
  const endpoint = sandbox ? messagesEndpoint(baseUrl, '--sandbox') : endpointOf(ctx, baseUrl, settings.baseUrl);
  // A proxy variable that cannot be read is a usage error now, before a bulk run writes a journal.
  if (!sandbox) routeFor(endpoint, ctx.env);
  return { endpoint, baseUrl, apiKey, direct: sandbox, sandbox };
}

/**
 * The messages endpoint of the resolved base URL (undefined when none is set). One that ends in
 * `/v2` is refused (docs/contract.md: Requests) with the command that fixes it where it was
 * given: this command with the flag's value corrected, the variable set right, or the profile's
 * setting changed, so that the hint is a command msgr then accepts.
 */
export function settingsEndpoint(ctx: Pick<Context, 'argv'>, baseUrl: Resolved<string | undefined>): URL | undefined {
  return baseUrl.value !== undefined ? endpointOf(ctx, baseUrl.value, baseUrl) : undefined;
}

function endpointOf(ctx: Pick<Context, 'argv'>, given: string, baseUrl: Resolved<string | undefined>): URL {
  const source = describeSource(baseUrl);
  const versioned = versionInBase(given);
  if (versioned !== undefined) {
    const { fixed } = versioned;
    const fix =
      baseUrl.source === 'flag' ? `Run it as: ${msgrCommand(ctx.argv, { set: ['--base-url', fixed] })}`
      : baseUrl.source === 'env' ? `Set MSGR_BASE_URL=${shellQuote(fixed)} where it is set (or run: MSGR_BASE_URL=${shellQuote(fixed)} ${msgrCommand(ctx.argv)})`
      : baseUrl.source === 'profile' && baseUrl.origin !== undefined ? `Fix the profile: msgr profile set ${shellQuote(baseUrl.origin)} base-url ${shellQuote(fixed)}`
      : undefined;
    throw versionInBaseError(source, given, versioned, fix);
  }
  return messagesEndpoint(given, source);
}
