// A preview or a dry run (the door: bulk/campaign-door.ts): what the campaign would send; they stop there.
import { printDryRun, printPreview } from '../display/preview.js';
import type { Command, OpenRun } from './opening.js';
import type { Checked } from './checking.js';

/** A preview's --json document, or a dry run's lines and document: what the campaign would send. */
export function showTrial(cmd: Command, open: OpenRun, checked: Checked): void {
  const { ctx, ui, campaign } = cmd;
  const { pre, base } = checked;
  const out = { stdout: ctx.stdout, ui, json: campaign.output.json, summary: base };
  if (campaign.purpose.kind === 'preview') {
    if (campaign.output.json) printPreview(out, open.plan.message, pre.firstRows, pre.toSend);
    return;
  }
  // Nothing was sent, so there is nothing to report (a refused dry run reported its invalid rows above).
  const reportPath = campaign.output.report?.path;
  if (reportPath !== undefined) ui.info(`dry run: no report written to ${reportPath}: nothing was sent`);
  printDryRun({ ...out, summary: { ...base, report: null } }, open.message.firstFrame(pre.firstKey), pre.firstBatch, pre, campaign.spend.limit);
}
