// `msgr runs report`: a run's report written to a file, every row with its outcome and what its
// receipts say.
import type { Context } from '../../../context.js';
import { createUi } from '../../../output/ui.js';
import { writeReport } from '../../../bulk/runs-door.js';
import { formatCount } from '../../../output/count.js';
import { deliveryJson, describeDelivery } from '../shared.js';
import type { ReportOptions } from './options.js';

export async function runReport(ctx: Context, ref: string, opts: ReportOptions): Promise<void> {
  const ui = createUi(ctx, opts);
  const { journal, path, runId, written: r } = await writeReport(ctx, ref, opts.report ?? '', (line) => ui.debug(line), { events: opts.events, fields: opts.fields });
  if (!r.complete) ui.warn(`${r.partialBecause ?? 'the input file changed'}: the report lists the ${formatCount(r.rows)} rows the run sent (rows it skipped or never sent are not in it)`);
  ui.success(`wrote ${formatCount(r.rows)} row${r.rows === 1 ? '' : 's'} to ${path} (${formatCount(r.withIds)} with a message id)`);
  if (r.delivery !== undefined) ui.info(`  delivery: ${describeDelivery(r.delivery)}`);
  if (opts.json) {
    const doc = { runId: runId ?? null, journal, report: path, rows: r.rows, withIds: r.withIds, complete: r.complete, partialBecause: r.partialBecause ?? null, delivery: r.delivery !== undefined ? deliveryJson(r.delivery) : null };
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  }
}
