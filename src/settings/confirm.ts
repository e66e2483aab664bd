// The production guard (docs/configuration.md: "The production guard"): an operator must never send a production
// campaign from the wrong account by accident. A profile with `confirm: true` makes every send
// show where it is going and ask on the terminal; without a terminal it needs --yes. The summary
// shows each value's source, because the usual accident is an environment variable overriding the
// profile.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { maskSecret, showControls } from '../output/sanitize.js';
import { createUi } from '../output/ui.js';
import { formatSources } from '../output/table.js';
import { lineWidth, wrap } from '../output/wrap.js';
import { describeSource, type Resolved, type Settings } from './resolve.js';
import { formatCount } from '../output/count.js';

const shown = (r: Resolved<string | undefined>): string => r.value ?? '(not set)';

export interface ConfirmOptions {
  /** How many recipients (numbers plus contacts, or CSV rows) this send reaches. */
  readonly recipients: number;
  /** --yes was given. */
  readonly yes: boolean;
  /**
   * The accountReference actually in the request when it did not come from settings (an
   * --input file's), so the question shows the account the message will really go from.
   */
  readonly account?: Resolved<string | undefined> | undefined;
  /** What is being sent, when it is not a message (`msgr api`: the method and path). */
  readonly what?: string | undefined;
}

export async function confirmSend(ctx: Context, settings: Settings, options: ConfirmOptions): Promise<void> {
  if (!settings.confirm || options.yes) return;
  const name = settings.profile.value ?? '';
  if (ctx.stdin.isTTY !== true) {
    throw new UsageError(`profile "${name}" asks for confirmation before every send, and there is no terminal to ask on; nothing was sent`, {
      hint: 'Check the target with `msgr profile show`, then add --yes to send without the question (scripts, cron, piped input).',
    });
  }
  const ui = createUi(ctx);
  const c = ui.color;
  const key = settings.apiKey.value !== undefined ? maskSecret(settings.apiKey.value) : undefined;
  const count = options.recipients;
  const account = options.account ?? settings.account;
  const rows: Array<[string, string, string]> = [
    ['profile', name, describeSource(settings.profile)],
    ['account', shown(account), describeSource(account)],
    ['base URL', shown(settings.baseUrl), describeSource(settings.baseUrl)],
    ['API key', key ?? '(not set)', describeSource(settings.apiKey)],
    ['sending', options.what !== undefined ? `${options.what}${count > 0 ? ` (${formatCount(count)} recipient${count === 1 ? '' : 's'})` : ''}` : `${formatCount(count)} recipient${count === 1 ? '' : 's'}`, ''],
  ];
  // Fitted to the terminal: on a narrow one, each source under its value (output/table.ts).
  const columns = lineWidth(ctx.stderr);
  ctx.stderr.write(
    [
      wrap(`${c.yellow('Confirm:')} profile "${showControls(name)}" asks before every send.`, columns),
      ...formatSources(rows.map(([label, value, source]) => [label, c.bold(showControls(value)), source === '' ? '' : c.dim(source)] as const), columns, '  '),
      '',
    ].join('\n'),
  );
  const { promptYesNo } = await import('../profiles/prompt.js');
  const yes = await promptYesNo(ctx, 'Send?');
  if (!yes) {
    throw new UsageError('not confirmed; nothing was sent', { hint: 'Answer y to send, or use --yes in scripts.' });
  }
}
