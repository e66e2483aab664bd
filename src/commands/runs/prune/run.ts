// `msgr runs prune`: finished runs older than an age removed (or listed, with --dry-run).
import type { Context } from '../../../context.js';
import { createUi } from '../../../output/ui.js';
import { pruneRuns } from '../../../bulk/runs-door.js';
import { formatCount } from '../../../output/count.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import type { PruneOptions } from './options.js';

export async function runPrune(ctx: Context, opts: PruneOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const r = await pruneRuns(ctx, opts.olderThanMs ?? Number.POSITIVE_INFINITY, opts.dryRun);
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify({ dryRun: opts.dryRun, removed: r.removed, keptUnfinished: r.keptUnfinished, keptNeeded: r.keptNeeded, keptElsewhere: r.keptElsewhere }, null, 2)}\n`);
    return;
  }
  const verb = opts.dryRun ? 'would remove' : 'removed';
  for (const run of r.removed) ctx.stdout.write(`${wrap(`${verb} ${run.runId}  ${run.file}  ${run.journal}`, lineWidth(ctx.stdout))}\n`);
  ui.info(`${verb} ${formatCount(r.removed.length)} finished or abandoned run${r.removed.length === 1 ? '' : 's'}${opts.dryRun ? ' (dry run: nothing was removed)' : ''}`);
  if (r.keptUnfinished.length > 0) ui.info(`kept ${formatCount(r.keptUnfinished.length)} unfinished run${r.keptUnfinished.length === 1 ? '' : 's'} as old (\`msgr runs list\`): resume them, or delete their journals by hand`);
  if (r.keptElsewhere.length > 0) {
    const n = r.keptElsewhere.length;
    ui.info(`kept ${formatCount(n)} finished run${n === 1 ? '' : 's'} whose journal${n === 1 ? ' is' : 's are'} kept by --journal outside msgr's folder (yours to delete): ${r.keptElsewhere.slice(0, 3).map((x) => x.journal).join(', ')}${n > 3 ? ', …' : ''}`);
  }
  if (r.keptNeeded.length > 0) ui.info(`kept ${formatCount(r.keptNeeded.length)} finished or abandoned run${r.keptNeeded.length === 1 ? '' : 's'} that a run kept leaves out the numbers of (its --resume and \`msgr runs report\` read them)`);
}
