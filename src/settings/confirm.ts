// The production guard (issue: "an operator must never send a production campaign from the
// wrong account by accident"). A profile with `confirm: true` makes every send show where it is
// going and ask on the terminal; without a terminal it needs --yes. The summary shows each
// value's source, because the usual accident is an environment variable overriding the profile.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { maskSecret, stripControl } from '../output/sanitize.js';
import { createUi } from '../output/ui.js';
import { describeSource, type Resolved, type Settings } from './resolve.js';

export interface ConfirmOptions {
  /** How many recipients (numbers plus contacts, or CSV rows) this send reaches. */
  readonly recipients: number;
  /** --yes was given. */
  readonly yes: boolean;
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
  const row = (label: string, r: Resolved<string | undefined>, shown?: string): string => {
    const value = shown ?? (r.value !== undefined ? stripControl(r.value) : '(not set)');
    return `  ${label.padEnd(9)} ${c.bold(value)}  ${c.dim(describeSource(r))}`;
  };
  const count = options.recipients;
  ctx.stderr.write(
    [
      `${c.yellow('Confirm:')} profile "${stripControl(name)}" asks before every send.`,
      row('profile', settings.profile),
      row('account', settings.account),
      row('base URL', settings.baseUrl),
      row('API key', settings.apiKey, settings.apiKey.value !== undefined ? maskSecret(settings.apiKey.value) : undefined),
      `  ${'sending'.padEnd(9)} ${c.bold(`${count.toLocaleString('en-US')} recipient${count === 1 ? '' : 's'}`)}`,
      '',
    ].join('\n'),
  );
  const { promptYesNo } = await import('../profiles/prompt.js');
  const yes = await promptYesNo(ctx, 'Send?');
  if (!yes) {
    throw new UsageError('not confirmed; nothing was sent', { hint: 'Answer y to send, or use --yes in scripts.' });
  }
}
