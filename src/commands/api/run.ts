// `msgr api`: options → request under the base URL → HTTP (the send client, any method and path)
// → outcome → output and exit code, exactly as `msgr send` renders them.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { awaitAnswer } from '../shared/one-request.js';
import { caFileSource } from '../../http/ca-file.js';
import { apiUrl, userAgent } from '../../http/endpoint.js';
import { prepareSingleRequest } from '../../http/single-request.js';
import type { ApiRequest } from '../../http/client.js';
import { outcomeError } from '../../http/outcome-error.js';
import { maskSecret, maskUrl, redact, redactJson, showControls } from '../../output/sanitize.js';
import { createUi } from '../../output/ui.js';
import { describeSource, resolveSettings } from '../../settings/resolve.js';
import { resolveTarget, settingsEndpoint } from '../../settings/target.js';
import { readFlagFile } from '../shared/flag-files.js';
import { setField, type ApiOptions } from './options.js';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function runApi(ctx: Context, opts: ApiOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  if (opts.input === '-' && opts.apiKeyStdin === true) throw new UsageError('--input - and --api-key-stdin both read stdin; give one of them a file');
  const input = opts.input !== undefined ? await readFlagFile('--input', opts.input, ctx) : undefined;
  const settings = await resolveSettings(ctx, { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, caFile: opts.caFile }, { profileOptional: opts.sandbox === true });
  const account = settings.account.value;
  const substitute = (s: string): string =>
    s.replace(/\{account\}/g, () => {
      if (account === undefined) throw new UsageError('{account} is used but no account is set', { hint: 'Give --account REF, set MSGR_ACCOUNT_REFERENCE, or save one in the profile.' });
      return account;
    });
  const path = substitute(opts.path);
  const method = opts.method ?? (input !== undefined || opts.fields.length > 0 ? 'POST' : 'GET');
  const { body, query } = buildBody(opts, method, input, substitute);
  // Checked before anything starts, so a wrong path costs no sandbox and no prompt.
  if (opts.sandbox !== true) settingsEndpoint(ctx, settings.baseUrl);
  apiUrl(settings.baseUrl.value ?? 'https://placeholder.invalid', path + query);

  const target = await resolveTarget(ctx, ui, settings, opts.sandbox === true);
  const url = apiUrl(target.baseUrl, path + query, opts.sandbox === true ? '--sandbox' : describeSource(settings.baseUrl));
  if (!target.sandbox && !SAFE.has(method)) {
    const { confirmSend } = await import('../../settings/confirm.js');
    await confirmSend(ctx, settings, { recipients: recipientsIn(body), yes: opts.yes === true, what: `${method} ${url.pathname}` });
  }

  await prepareSingleRequest(ctx.nodeVersion);
  const apiKey = target.apiKey;
  const client = (await ctx.http()).client({
    endpoint: url,
    apiKey,
    userAgent: userAgent(ctx),
    timeoutMs: opts.timeout,
    caFile: settings.caFile.value,
    caFileSource: caFileSource(settings.caFile),
    baseUrlSource: describeSource(settings.baseUrl),
    connections: 1,
    env: ctx.env,
    direct: target.direct,
    ...(ui.verbose ? { debug: (line: string) => ui.debug(redact(line, apiKey)) } : {}),
    onRetry: ({ delayMs, reason }) => ui.info(`retrying in ${(delayMs / 1000).toFixed(1)} s (${reason})`),
  });
  ctx.onExit(() => client.close());
  ui.debug(`${method} ${maskUrl(url)} with key ${maskSecret(apiKey)} (${settings.apiKey.origin ?? settings.apiKey.source})`);
  const request: ApiRequest = { method, url, body, headers: opts.headers };
  const { randomUUID } = await import('node:crypto');
  // Every attempt of one POST carries the same key, as `send` does, unless -H gives one.
  const idempotencyKey = method === 'POST' || method === 'PATCH' ? `msgr-${randomUUID()}` : undefined;
  // As in send, a signal now waits for the answer (commands/shared/one-request.ts).
  const outcome = await awaitAnswer(ctx, ui, opts.timeout, (stopRetries) => client.request(request, { ...(idempotencyKey !== undefined ? { idempotencyKey } : {}), stopRetries }));
  if (outcome.kind !== 'accepted') {
    throw outcomeError(outcome, {
      apiKey,
      tty: ctx.stderr.isTTY === true,
      rejectedHint: 'Fix the request and send it again; --verbose shows what was sent (key masked).',
      address: { method, url, built: '{base_url}{path}', baseUrl: target.sandbox ? undefined : settings.baseUrl.value, source: target.sandbox ? '--sandbox' : describeSource(settings.baseUrl) },
      unknownHint: 'The request may have been processed. Check whether it took effect before sending it again.',
    });
  }
  const parsed = redactJson(outcome.body, apiKey);
  const text = redact(outcome.text, apiKey);
  if (opts.json === true) {
    ctx.stdout.write(`${JSON.stringify(parsed !== undefined ? parsed : { accepted: true, status: outcome.status, text }, null, 2)}\n`);
  } else if (parsed !== undefined) {
    const out = JSON.stringify(parsed, null, 2);
    ctx.stdout.write(`${ctx.stdout.isTTY === true ? showControls(out) : out}\n`);
  } else if (text !== '') {
    ctx.stdout.write(ctx.stdout.isTTY === true ? showControls(text) : text);
    if (!text.endsWith('\n')) ctx.stdout.write('\n');
  }
  ui.success(`HTTP ${outcome.status} for ${method} ${url.pathname}${target.sandbox ? ' (sandbox: nothing was delivered)' : ''}`);
}

/** The body (JSON text) and the query string a GET's fields become. */
function buildBody(opts: ApiOptions, method: string, input: string | undefined, substitute: (s: string) => string): { body: string | undefined; query: string } {
  const noBody = method === 'GET' || method === 'HEAD';
  if (noBody) {
    if (input !== undefined) throw new UsageError(`--input: a ${method} request has no body`, { hint: 'Use POST, PUT or PATCH, or leave the method out.' });
    if (opts.fields.length === 0) return { body: undefined, query: '' };
    const params = new URLSearchParams();
    for (const f of opts.fields) {
      const eq = f.indexOf('=');
      if (eq <= 0 || f.slice(0, eq).endsWith(':')) throw new UsageError(`--field: "${f}" is not key=value (a ${method} request sends fields as query parameters)`);
      params.append(f.slice(0, eq), substitute(f.slice(eq + 1)));
    }
    return { body: undefined, query: `${opts.path.includes('?') ? '&' : '?'}${params.toString()}` };
  }
  if (opts.fields.length === 0) return { body: input, query: '' };
  let target: Record<string, unknown> = {};
  if (input !== undefined && input.trim() !== '') {
    let data: unknown;
    try {
      data = JSON.parse(input);
    } catch (err) {
      throw new UsageError(`--input: ${opts.input === '-' ? 'stdin' : (opts.input ?? '')} is not valid JSON, so --field cannot add to it (${(err as Error).message})`);
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new UsageError('--input: --field adds to a JSON object, and the input is not one');
    target = data as Record<string, unknown>;
  }
  for (const f of opts.fields) setField(target, f, substitute);
  return { body: JSON.stringify(target), query: '' };
}

/** Recipients a message body reaches, for the production guard's question. */
function recipientsIn(body: string | undefined): number {
  if (body === undefined) return 0;
  try {
    const data = JSON.parse(body) as { recipients?: unknown; addressBook?: { contacts?: unknown } };
    return (Array.isArray(data.recipients) ? data.recipients.length : 0) + (Array.isArray(data.addressBook?.contacts) ? data.addressBook.contacts.length : 0);
  } catch {
    return 0;
  }
}
