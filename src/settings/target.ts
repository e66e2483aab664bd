// Where a send goes: the endpoint and key from the resolved settings, or the in-process sandbox
// for --sandbox. Shared by `send` and `send-bulk` so both refuse, hint and announce the same way.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { messagesEndpoint, versionInBase, versionInBaseError } from '../http/endpoint.js';
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

/** What a send has besides the settings: the account and sender it will send with, if any. */
export interface SendHas {
  readonly sandbox: boolean;
  /** A dry run or a preview: no base URL or key needed. */
  readonly offline: boolean;
  readonly account: boolean;
  readonly from: boolean;
}

/**
 * A first send on a machine with nothing set up would otherwise learn of the account, the
 * sender, the base URL and the key one run at a time: two or more missing are named at once,
 * with the two ways on (a profile, or --sandbox). One missing keeps its own error, where it is
 * checked (buildRequest, resolveTarget).
 */
export function checkSetUp(settings: Settings, has: SendHas): void {
  const online = !has.sandbox && !has.offline;
  const profile = settings.profile.value;
  // For each: the ways to give it, and how a profile gets it (`profile add` flag, `profile set` words).
  const missing: Array<{ name: string; ways: string; add?: string; set: string }> = [];
  if (online && settings.baseUrl.value === undefined) missing.push({ name: 'base URL', ways: '--base-url https://..., MSGR_BASE_URL, or a profile', add: '--base-url https://...', set: 'base-url https://...' });
  if (online && settings.apiKey.value === undefined) missing.push({ name: 'API key', ways: '--api-key-file PATH, --api-key-stdin or MSGR_API_KEY, or a profile', set: 'api-key' });
  if (!has.account) missing.push({ name: 'account', ways: '--account REF, MSGR_ACCOUNT_REFERENCE, or a profile', add: '--account REF', set: 'account REF' });
  if (!has.from) missing.push({ name: 'sender', ways: "--from SENDER, or a profile's default sender", add: '--from SENDER', set: 'from SENDER' });
  if (missing.length < 2) return;
  const names = missing.map((m) => m.name);
  const list = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1] ?? ''}`;
  const width = Math.max(...names.map((n) => n.length));
  const lines = missing.map((m) => `  ${m.name.padEnd(width)}  ${m.ways}`);
  const ways =
    profile !== undefined
      ? [`Complete profile "${profile}": ${missing.map((m) => `msgr profile set ${profile} ${m.set}`).join('; ')}.`]
      : [`Save them once: msgr profile add NAME ${missing.flatMap((m) => (m.add !== undefined ? [m.add] : [])).join(' ')}${settings.apiKey.value === undefined ? ' (it asks for the key on a terminal; or pipe it in with --api-key-stdin)' : ''}.`];
  if (!has.sandbox) ways.push(`Or try msgr first with the built-in emulator (nothing is delivered): add --sandbox${!has.from ? ' and --from SENDER' : ''}.`);
  throw new UsageError(`msgr is not set up to send here: no ${list}\n${lines.join('\n')}`, { hint: ways.join('\n      ') });
}

/** How long a command's in-process sandbox keeps posting its events once the command is done. */
export const WEBHOOK_FLUSH_MS = 10_000;

export async function resolveTarget(ctx: Context, ui: Ui, settings: Settings, sandbox: boolean, webhookFlag?: string): Promise<Target> {
  // The webhook URL carries a listener's token: MSGR_WEBHOOK_URL keeps it out of `ps`
  // (docs/events.md: "msgr listen"). Only for the sandbox: a real send has no events to post.
  const fromEnv = ctx.env.MSGR_WEBHOOK_URL;
  const webhookUrl = webhookFlag ?? (sandbox && fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  let baseUrl = settings.baseUrl.value;
  let apiKey = settings.apiKey.value;
  if (sandbox) {
    const { startSandbox, DEFAULT_EVENT_PLAN } = await import('../sandbox/server.js');
    apiKey ??= 'sandbox-key';
    const server = await startSandbox({ port: 0, apiKey, ...(webhookUrl !== undefined ? { webhook: { url: webhookUrl, plan: DEFAULT_EVENT_PLAN }, http: ctx.http } : {}) });
    // Its events go out when the command is done, without waiting for their delays (docs/events.md).
    ctx.onExit(async () => {
      await server.close(0, WEBHOOK_FLUSH_MS);
      const w = server.stats().webhooks;
      if (w !== undefined) {
        const lost = w.unsent + w.gaveUp + w.dropped;
        const line = `sandbox: ${w.delivered} delivery event${w.delivered === 1 ? '' : 's'} posted to the webhook URL${lost > 0 ? `; ${lost} not acknowledged (is the listener running?)` : ''}`;
        if (lost > 0) ui.warn(line);
        else ui.info(line);
      }
    });
    baseUrl = server.url;
    ui.info(ui.color.cyan(`sandbox: sending to the built-in emulator at ${server.url}; nothing will be delivered${webhookUrl !== undefined ? '; its delivery events go to the webhook URL' : ''}`));
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
  // Loaded here, not at the top: it loads node:net, which a dry run never needs.
  if (!sandbox) (await import('../http/proxy.js')).routeFor(endpoint, ctx.env);
  return { endpoint, baseUrl, apiKey, direct: sandbox, sandbox };
}

/**
 * The messages endpoint of the resolved base URL (undefined when none is set). One that ends in
 * `/v2` is refused (docs/contract.md: "Requests") with the command that fixes it where it was
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
