// `msgr send-bulk`, top to bottom: argv → the campaign (./campaign.ts) → the engine's stages,
// through its front door (src/bulk/campaign-door.ts, the only module of src/bulk/ this imports):
// open the run → preflight (a preview or a dry run stops there) → confirm → a sample, or the send
// pass → summary → exit code. Where each stage lives: docs/design.md.
import type { Context } from '../../context.js';
import { createUi } from '../../output/ui.js';
import { confirm, openRun, preflight, RunContext, sample, send, showTrial, summarise } from '../../bulk/campaign-door.js';
import { resolveCampaign } from './resolve-campaign.js';
import type { BulkOptions } from './options.js';

export async function runSendBulk(ctx: Context, opts: BulkOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  // The run's side channels (cleanups, what a full disk's message and a second Ctrl-C need),
  // first thing: from here a signal winds the run down instead of quitting at once.
  const rc = new RunContext(ctx);
  try {
    const campaign = await resolveCampaign(ctx, opts);
    const cmd = { ctx, ui, campaign, rc };
    const open = await openRun(cmd);
    // Nothing to do (the run finished, or another process is sending it): said so.
    if (open === undefined) return;
    const checked = await preflight(cmd, open);
    if (campaign.purpose.kind === 'preview' || campaign.purpose.kind === 'dry-run') return showTrial(cmd, open, checked);
    await confirm(cmd, open, checked);
    if (campaign.purpose.kind === 'sample') return await sample(cmd, open, checked);
    const sent = await send(cmd, open, checked);
    await summarise(cmd, open, checked, sent);
  } catch (err) {
    throw rc.failed(ctx, err);
  } finally {
    rc.close();
  }
}
