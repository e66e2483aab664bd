// Where a send goes: the endpoint and key from the resolved settings, or the in-process sandbox
// for --sandbox. Shared by `send` and `send-bulk` so both refuse, hint and announce the same way.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { messagesEndpoint } from '../http/endpoint.js';
import { routeFor } from '../http/proxy.js';
import type { Ui } from '../output/ui.js';
import { checkApiKey, describeSource, type Settings } from './resolve.js';

export interface Target {
  readonly endpoint: URL;
  /** The base URL the endpoint is under (the sandbox's for --sandbox), for `msgr api`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** No proxy: the in-process sandbox is on loopback. */
  readonly direct: boolean;
  readonly sandbox: boolean;
}

/** How long a command's in-process sandbox keeps posting its events once the command is done. */
export const WEBHOOK_FLUSH_MS = 10_000;

export async function resolveTarget(ctx: Context, ui: Ui, settings: Settings, sandbox: boolean, webhookUrl?: string): Promise<Target> {
  let baseUrl = settings.baseUrl.value;
  let apiKey = settings.apiKey.value;
  if (sandbox) {
    const { startSandbox, DEFAULT_EVENT_PLAN } = await import('../sandbox/server.js');
    apiKey ??= 'sandbox-key';
    const server = await startSandbox({ port: 0, apiKey, ...(webhookUrl !== undefined ? { webhook: { url: webhookUrl, plan: DEFAULT_EVENT_PLAN } } : {}) });
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
  const endpoint = messagesEndpoint(baseUrl, sandbox ? '--sandbox' : describeSource(settings.baseUrl));
  // A proxy variable that cannot be read is a usage error now, before a bulk run writes a journal.
  if (!sandbox) routeFor(endpoint, ctx.env);
  return { endpoint, baseUrl, apiKey, direct: sandbox, sandbox };
}
