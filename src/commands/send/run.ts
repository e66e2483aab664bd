// `msgr send`: options → request → HTTP → outcome → output → exit code (docs/design.md: "The flow").
import { errorDocument, UsageError } from '../../errors.js';
import { stateDir } from '../../files/state-dir.js';
import { describeOptOut, describePossible, openOptOuts, optOutAccount, type OptOuts, type PossibleEntry } from '../../optouts/store.js';
import { awaitAnswer } from '../shared/one-request.js';
import { outcomeError, type OutcomeErrorOptions } from '../../http/outcome-error.js';
import type { Outcome } from '../../http/outcome.js';
import { checkCountry } from '../../message/numbers.js';
import { buildRequest, parseKeyValues, type KeyValues, type MessageDraft, type Problem } from '../../message/request.js';
import type { InputRequest } from '../../message/request-fields/whole-request.js';
import { maskSecret, maskUrl, redact, redactJson, showControls } from '../../output/sanitize.js';
import { createUi, paint, type Ui } from '../../output/ui.js';
import { lineWidth } from '../../output/wrap.js';
import { caFileSource } from '../../http/ca-file.js';
import { userAgent } from '../../http/endpoint.js';
import { prepareSingleRequest } from '../../http/single-request.js';
import { colorLevel, type Context } from '../../context.js';
import { describeSource, resolveSettings, type Resolved, type Settings } from '../../settings/resolve.js';
import { checkSetUp, resolveTarget, settingsEndpoint } from '../../settings/target.js';
import { readFlagFile } from '../shared/flag-files.js';
import { splitList, type SendOptions } from './options.js';
import { acceptedLines, type AcceptedSend } from './result.js';
import type { OnceSend } from '../../once/one-message.js';

export async function runSend(ctx: Context, opts: SendOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  const input = opts.input !== undefined ? await readInput(ctx, opts.input) : undefined;
  const text = await safeText(ui, await resolveText(ctx, opts, input), opts.gsmSafe === true);
  const settings = await resolveSettings(ctx, {
    profile: opts.profile,
    baseUrl: opts.baseUrl,
    account: opts.account,
    apiKeyFile: opts.apiKeyFile,
    apiKeyStdin: opts.apiKeyStdin,
    from: opts.from,
    channel: opts.channel,
    caFile: opts.caFile,
    defaultCountry: opts.defaultCountry,
  }, { profileOptional: opts.sandbox === true });
  const sandbox = opts.sandbox === true;
  const draft = buildDraft(opts, input, text, settings, sandbox);
  checkSetUp(settings, { sandbox, offline: opts.dryRun === true, account: draft.accountReference !== undefined, from: draft.from !== undefined && draft.from !== '' });
  // A text read from a file is that file's fault when it is empty: name the flag and the file.
  const built = buildRequest(draft, ctx.now(), opts.textFile !== undefined ? { text: `--text-file ${opts.textFile}` } : {});
  if (!built.ok) throw problemsError(built.problems);
  let request = leaveOutOptedOut(ctx, ui, built.request, sandbox, opts.includeOptedOut === true);
  const recipientCount = (request.recipients?.length ?? 0) + (request.addressBook?.contacts.length ?? 0);
  // Numbers given and left out as opted out: said with the count they change (named in warnings above).
  const suppressed = (built.request.recipients?.length ?? 0) - (request.recipients?.length ?? 0);
  const leftOut = suppressed > 0 ? ` (${suppressed} more left out: opted out)` : '';
  // --once KEY: the message goes out once under the key, however often this command runs (src/once/one-message.ts).
  const once = opts.once !== undefined ? await openOnce(ctx, ui, opts, settings, request, sandbox) : undefined;
  // A dry run shows the request, as it always does (the one the key sent): never the old answer
  // where a script reads the request.
  if (once?.kind === 'done' && opts.dryRun === true) {
    ctx.stdout.write(`${JSON.stringify(once.request, null, 2)}\n`);
    ui.info(`dry run: already done: --once ${opts.once ?? ''} was accepted at ${once.at}; the same command without --dry-run sends nothing`);
    return;
  }
  if (once?.kind === 'done') {
    ui.info(`already done: --once ${opts.once ?? ''} was accepted at ${once.at}; nothing was sent`);
    renderOutcome(ctx, ui, { kind: 'accepted', status: once.status, body: once.body, text: once.text, attempts: 1 }, {
      json: opts.json === true,
      sandbox,
      recipients: recipientCount,
      apiKey: settings.apiKey.value ?? '',
      result: { numbers: request.recipients?.map((r) => r.msisdn) ?? [], contacts: request.addressBook?.contacts.length ?? 0, settings, account: settings.account, host: undefined },
      again: true,
    });
    return;
  }
  if (once !== undefined) request = once.request as unknown as typeof request;
  // Send windows and deadlines (docs/send-windows.md): outside them nothing is sent (exit 8). The
  // schedule's code is loaded only when a flag or the profile gives one: a send without them does
  // not read it at all (docs/design.md: "Choices", send-first).
  if (mayBeScheduled(opts, settings)) {
    const { checkSendWindow } = await import('../shared/send-windows.js');
    checkSendWindow(ctx, ui, opts, settings, request.recipients?.map((r) => r.msisdn) ?? [], opts.dryRun === true);
  }

  if (opts.dryRun === true) {
    // A dry run checks what it can without sending: a base URL the send would refuse fails here.
    if (!sandbox) settingsEndpoint(ctx, settings.baseUrl);
    // A dry run shows exactly what would be sent; it has no key in it by construction.
    ctx.stdout.write(`${JSON.stringify(request, null, 2)}\n`);
    if (request.body.text !== undefined) {
      // What it will cost, counted as send-bulk counts it (docs/personalised.md: "Personalised messages").
      const { TextTotals } = await import('../../message/text-totals.js');
      const { analyseText } = await import('../../message/segments.js');
      const totals = new TextTotals();
      totals.add(analyseText(request.body.text), undefined, Math.max(1, recipientCount));
      ui.info(totals.describe());
    }
    ui.info(`dry run: request for ${recipientCount} recipient${recipientCount === 1 ? '' : 's'} is valid${leftOut}; nothing was sent`);
    return;
  }

  const { endpoint, apiKey, direct } = await resolveTarget(ctx, ui, settings, sandbox, opts.webhookUrl);
  // The account actually sent may come from --input rather than the settings, or be the sandbox's.
  const account: Resolved<string | undefined> =
    request.accountReference === settings.account.value
      ? settings.account
      : { value: request.accountReference, source: sandbox && settings.account.value === undefined ? 'default' : 'flag', origin: sandbox ? '--sandbox' : '--input' };
  if (!sandbox) {
    const { confirmSend } = await import('../../settings/confirm.js');
    await confirmSend(ctx, settings, { recipients: recipientCount, yes: opts.yes === true, account });
  }

  // undici is the heaviest import: only a real send pays for it.
  await prepareSingleRequest(ctx.nodeVersion);
  const client = (await ctx.http()).client({
    endpoint,
    apiKey,
    userAgent: userAgent(ctx),
    timeoutMs: opts.timeout,
    caFile: settings.caFile.value,
    caFileSource: caFileSource(settings.caFile),
    nodeVersion: ctx.nodeVersion,
    profile: settings.profile.value,
    baseUrlSource: describeSource(settings.baseUrl),
    connections: 1,
    env: ctx.env,
    direct,
    ...(ui.verbose ? { debug: (line: string) => ui.debug(redact(line, apiKey)) } : {}),
    onRetry: ({ delayMs, reason }) => ui.info(`retrying in ${(delayMs / 1000).toFixed(1)} s (${reason})`),
  });
  ctx.onExit(() => client.close());
  ui.debug(`sending to ${maskUrl(endpoint)} with key ${maskSecret(apiKey)} (${settings.apiKey.origin ?? settings.apiKey.source})`);
  const { randomUUID } = await import('node:crypto');
  const idempotencyKey = once?.idempotencyKey ?? `msgr-${randomUUID()}`;
  once?.sending();
  // A signal now waits for the answer (commands/shared/one-request.ts).
  const outcome = await awaitAnswer(ctx, ui, opts.timeout, (stopRetries) => client.send(request, { idempotencyKey, stopRetries }));
  once?.answered(outcome);
  const address = { method: 'POST', url: endpoint, built: '{base_url}/v2/messages', baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) };
  const result = { numbers: request.recipients?.map((r) => r.msisdn) ?? [], contacts: request.addressBook?.contacts.length ?? 0, suppressed, settings, account, host: sandbox ? undefined : endpoint.host };
  renderOutcome(ctx, ui, outcome, { json: opts.json === true, sandbox, recipients: recipientCount, leftOut, apiKey, result, address: sandbox ? undefined : address });
}

/** A window, zone or deadline given by a flag or kept by the profile: else a send is not scheduled. */
function mayBeScheduled(opts: SendOptions, settings: Pick<Settings, 'window' | 'tz'>): boolean {
  return opts.window !== undefined || opts.tz !== undefined || opts.anyTime !== undefined || opts.notBefore !== undefined || opts.stopAt !== undefined || settings.window.value !== undefined || settings.tz.value !== undefined;
}

/** The key's record for this request (a dry run only reads it). */
async function openOnce(ctx: Context, ui: Ui, opts: SendOptions, settings: Settings, request: { accountReference: string } & object, sandbox: boolean): Promise<OnceSend> {
  const { openOnceSend } = await import('../../once/one-message.js');
  const { placeOf } = await import('../../once/keys.js');
  const place = placeOf(settings.baseUrl.value, sandbox, request.accountReference);
  return openOnceSend(ctx, ui, { key: opts.once ?? '', place, request: { ...request }, dryRun: opts.dryRun === true, timeoutMs: opts.timeout, apiKey: settings.apiKey.value });
}

function renderOutcome(ctx: Context, ui: Ui, outcome: Outcome, o: { json: boolean; sandbox: boolean; recipients: number; leftOut?: string; apiKey: string; result: Omit<AcceptedSend, 'status' | 'body'>; address?: OutcomeErrorOptions['address']; again?: boolean }): void {
  const plural = o.recipients === 1 ? '' : 's';
  switch (outcome.kind) {
    case 'accepted': {
      // Whatever the server sends back, the key never reaches stdout.
      const body = redactJson(outcome.body, o.apiKey);
      const text = redact(outcome.text, o.apiKey);
      // A person at a terminal gets what happened in a few lines (result.ts), and the answer
      // itself only with --json or --verbose; a script's stdout (not a terminal) gets the answer.
      const person = ctx.stdout.isTTY === true && !o.json;
      if (o.json) {
        const doc = body !== undefined ? body : { accepted: true, status: outcome.status, text };
        ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      } else if (!person || ui.verbose) {
        if (body !== undefined) {
          const out = JSON.stringify(body, null, 2);
          ctx.stdout.write(`${ctx.stdout.isTTY === true ? showControls(out) : out}\n`);
        } else if (text.trim() !== '') {
          ctx.stdout.write(`${ctx.stdout.isTTY === true ? showControls(text) : text}\n`);
        }
      }
      if (person) {
        ctx.stdout.write(acceptedLines({ ...o.result, status: outcome.status, body }, paint(colorLevel(ctx.env, ctx.stdout)), lineWidth(ctx.stdout)));
        return;
      }
      if (o.again !== true) ui.success(`accepted by the API (HTTP ${outcome.status}) for ${o.recipients} recipient${plural}${o.leftOut ?? ''}; accepted is not yet delivered`);
      if (o.sandbox && o.again !== true) ui.info('sandbox: nothing was delivered');
      return;
    }
    default:
      throw outcomeError(outcome, { apiKey: o.apiKey, tty: ctx.stderr.isTTY === true, rejectedHint: 'Fix the request and send again; --dry-run shows what would be sent.', ...(o.address !== undefined ? { address: o.address } : {}) });
  }
}

async function readInput(ctx: Context, path: string): Promise<InputRequest> {
  const text = await readFlagFile('--input', path, ctx);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input: ${path === '-' ? 'stdin' : path} is not valid JSON (${(err as Error).message})`);
  }
  // zod is loaded only for --input (start-up cost: docs/dependencies.md, "Start-up cost").
  const { InputRequestSchema } = await import('../../message/request-fields/whole-request.js');
  const parsed = InputRequestSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const where = i.path.length > 0 ? i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') : '(top level)';
      const msg = i.code === 'unrecognized_keys' ? `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')} (field names are the spec's)` : i.message;
      return `--input ${path}: ${where}: ${msg}`;
    });
    throw new UsageError(lines.join('\n'));
  }
  return parsed.data;
}

/** --gsm-safe: the text with its look-alikes replaced, and a line saying what that changed. */
async function safeText(ui: Ui, text: string | undefined, on: boolean): Promise<string | undefined> {
  if (!on || text === undefined) return text;
  // Imported only with the flag: a send's start-up stays as it was (docs/performance.md).
  const [{ gsmSafe }, { analyseText }] = await Promise.all([import('../../lookalikes/gsm-safe.js'), import('../../message/segments.js')]);
  const safe = gsmSafe(text);
  if (safe.replaced === 0) {
    ui.info('--gsm-safe: no look-alike to replace');
    return text;
  }
  const before = analyseText(text).parts;
  const after = analyseText(safe.text).parts;
  ui.info(`--gsm-safe: ${safe.replaced} look-alike${safe.replaced === 1 ? '' : 's'} replaced; ${before} → ${after} SMS part${after === 1 ? '' : 's'} a recipient`);
  return safe.text;
}

/** Text from --text, --text-file, the input file, or stdin when it is piped. */
async function resolveText(ctx: Context, opts: SendOptions, input: InputRequest | undefined): Promise<string | undefined> {
  if (opts.text !== undefined && opts.textFile !== undefined) throw new UsageError('--text and --text-file cannot be used together');
  if (opts.text !== undefined) return opts.text;
  if (opts.textFile !== undefined) {
    if (opts.textFile === '-' && (opts.apiKeyStdin === true || opts.input === '-')) {
      throw new UsageError(`--text-file - cannot be used with ${opts.apiKeyStdin === true ? '--api-key-stdin' : '--input -'}: stdin can carry only one of them`);
    }
    const { readTextFile } = await import('../../message/text-file.js');
    return readTextFile(ctx, opts.textFile, { flag: '--text-file', encoding: opts.textEncoding, encodingFlag: '--text-encoding' });
  }
  if (opts.template !== undefined || input?.body?.templateId !== undefined || input?.body?.text !== undefined) return undefined;
  // Piped text, unless stdin already carries the key or the input JSON.
  // Read as --text-file - reads it: a byte-order mark stripped, UTF-16 by its mark, bad UTF-8 refused.
  if (ctx.stdin.isTTY !== true && opts.apiKeyStdin !== true && opts.input !== '-') {
    const { readTextFile } = await import('../../message/text-file.js');
    const piped = await readTextFile(ctx, '-', { flag: 'piped text', encoding: opts.textEncoding, encodingFlag: '--text-encoding' });
    if (piped !== '') return piped;
  }
  return undefined;
}

function buildDraft(opts: SendOptions, input: InputRequest | undefined, text: string | undefined, settings: Settings, sandbox: boolean): MessageDraft {
  const country = settings.defaultCountry;
  const defaultCountry = country.value !== undefined ? checkCountry(country.value, describeSource(country)) : undefined;
  const vars = parseKeyValues('--var', opts.var);
  const meta = parseKeyValues('--meta', opts.meta);
  const to = splitList(opts.to);
  const contacts = splitList(opts.contact);
  // --to replaces the input's recipients; --var applies to every recipient.
  const baseRecipients: Array<{ msisdn: string; variables?: KeyValues | undefined; metaData?: KeyValues | undefined }> =
    to.length > 0 ? to.map((msisdn) => ({ msisdn })) : (input?.recipients ?? []);
  const recipients = baseRecipients.map((r) => ({
    msisdn: r.msisdn,
    variables: vars !== undefined || r.variables !== undefined ? { ...r.variables, ...vars } : undefined,
    metaData: r.metaData,
  }));
  // Message content from flags (or stdin) replaces the input's body as a whole.
  const fromFlags = text !== undefined || opts.template !== undefined;
  // Precedence: flag > env > profile > input file? The input file is the user's explicit
  // request, so its fields sit just under flags and env, above profile defaults.
  const account = settings.account.source === 'flag' || settings.account.source === 'env' ? settings.account.value : (input?.accountReference ?? settings.account.value);
  const from = settings.from.source === 'flag' ? settings.from.value : (input?.from ?? settings.from.value);
  const channel = settings.channel.source === 'flag' ? settings.channel.value : (input?.channel ?? settings.channel.value);
  return {
    accountReference: account ?? (sandbox ? 'SANDBOX' : undefined),
    name: opts.name ?? input?.name,
    characterSet: opts.characterSet ?? input?.characterSet,
    channel,
    from,
    validity: opts.validity ?? input?.validity,
    messageType: opts.messageType ?? input?.messageType,
    text: fromFlags ? text : input?.body?.text,
    templateId: fromFlags ? opts.template : input?.body?.templateId,
    recipients,
    contacts: contacts.length > 0 ? contacts : input?.addressBook?.contacts.map((c) => c.id),
    metaData: meta !== undefined || input?.metaData !== undefined ? { ...input?.metaData, ...meta } : undefined,
    defaultCountry,
    allowUnlisted: opts.allowUnlistedNumbers === true,
  };
}

/**
 * The request without the recipients in the account's opt-out store (docs/optouts.md: "Sending"),
 * each said on stderr as a warning (a script under -q learns a number it named was not messaged);
 * with --include-opted-out (and --yes, checked with the flags), as it is, said too. A request left
 * with no recipient is refused (exit 2): nothing was sent, and sending it would message no one.
 */
function leaveOutOptedOut<R extends { accountReference: string; recipients?: Array<{ msisdn: string }> | undefined; addressBook?: { contacts: unknown[] } | undefined }>(ctx: Context, ui: Ui, request: R, sandbox: boolean, include: boolean): R {
  const numbers = request.recipients ?? [];
  if (numbers.length === 0) return request;
  const optOuts = openOptOuts(stateDir(ctx.env, ctx.cwd), optOutAccount(request.accountReference, sandbox), ctx);
  // A possible opt-out stops the send until a person decides (docs/optouts.md: "Possible opt-outs").
  const undecided = numbers.flatMap((r) => {
    const p = optOuts.undecided(r.msisdn);
    return p !== undefined ? [p] : [];
  });
  if (undecided.length > 0) throw possibleOptOutsError(undecided, optOuts);
  if (optOuts.size === 0) return request;
  const out = numbers.flatMap((r) => {
    const entry = optOuts.get(r.msisdn);
    return entry !== undefined ? [entry] : [];
  });
  if (out.length === 0) return request;
  if (include) {
    for (const e of out) ui.warn(`${e.number} is ${describeOptOut(e)}: messaged all the same (--include-opted-out)`);
    return request;
  }
  const kept = numbers.filter((r) => !optOuts.has(r.msisdn));
  const contacts = request.addressBook?.contacts.length ?? 0;
  const listed = out.map((e) => ({ number: e.number, since: e.since, reason: e.reason, source: e.source, evidence: e.evidence ?? null }));
  if (kept.length === 0 && contacts === 0) {
    const message = `${out.length === 1 ? `${out[0]?.number ?? ''} is` : `all ${out.length} recipients are`} in the opt-out store (${out.length === 1 && out[0] !== undefined ? describeOptOut(out[0]) : 'msgr optout check lists them'}); nothing was sent`;
    const hint = `The store keeps the numbers that must not be messaged. To message ${out.length === 1 ? 'it' : 'them'} on purpose, add --include-opted-out --yes; to take ${out.length === 1 ? 'it' : 'one'} off the store (it opted in again): ${optOuts.removeCommand(out[0]?.number ?? '')}.`;
    throw new UsageError(message, { hint, jsonFor: (exitCode) => ({ ...errorDocument(message, hint, exitCode), suppressed: listed }) });
  }
  for (const e of out) ui.warn(`${e.number} left out, suppressed: ${describeOptOut(e)} (msgr optout check ${e.number})`);
  return { ...request, recipients: kept };
}

/** A send to numbers with possible opt-outs no one has decided on: stopped, naming them and the decision. */
function possibleOptOutsError(undecided: readonly PossibleEntry[], optOuts: OptOuts): UsageError {
  const first = undecided[0] as PossibleEntry;
  const message = undecided.length === 1 ? `${first.number} has a possible opt-out no one has decided on: ${describePossible(first)}; nothing was sent` : `${undecided.length} recipients have possible opt-outs no one has decided on (${undecided.slice(0, 3).map((p) => `${p.number}: ${describePossible(p)}`).join('; ')}); nothing was sent`;
  const hint = `A person reads the reply and decides: ${optOuts.decideCommand(first.number, 'accept')} (it is an opt-out: the number is left out from then on), or ${optOuts.decideCommand(first.number, 'dismiss')} (it is not); ${optOuts.listCommand(first.number)} lists them all.`;
  return new UsageError(message, { hint, jsonFor: (exitCode) => ({ ...errorDocument(message, hint, exitCode), possibleOptOuts: undecided.map((p) => ({ number: p.number, since: p.since, source: p.source, evidence: p.evidence ?? null })) }) });
}

function problemsError(problems: Problem[]): UsageError {
  const first = problems[0];
  if (problems.length === 1 && first !== undefined) {
    return new UsageError(`${first.field}: ${first.message}`, first.hint !== undefined ? { hint: first.hint } : {});
  }
  const lines = problems.map((p) => `  ${p.field}: ${p.message}`);
  // One hint for several recipients refused for one reason (numbers outside the plan).
  const hints = [...new Set(problems.flatMap((p) => (p.hint !== undefined ? [p.hint] : [])))];
  return new UsageError(`the message is not valid; nothing was sent:\n${lines.join('\n')}`, hints.length > 0 ? { hint: hints.join('\n      ') } : {});
}
