// The last stage (the door: bulk/campaign-door.ts): the summary, and the error that gives the exit code.
import { dirname } from 'node:path';
import { stateDir } from '../../files/state-dir.js';
import { redact, showControls } from '../../output/sanitize.js';
import { describeSource } from '../../settings/resolve.js';
import { FLAG } from '../flag-names.js';
import { spaceToResumeIn } from '../journal/reserve.js';
import { readRunDetail } from '../history/catalogue.js';
import { settleInDoubt } from '../history/run-delivery.js';
import { buildResumeCommand } from '../this-run/resume-command.js';
import { printLimitStop } from '../display/spend.js';
import { printSummary, successDocument, summaryError } from '../display/summary.js';
import { resumeWithOf, sendsToOf, type Command, type OpenRun } from './opening.js';
import type { Checked } from './checking.js';
import type { Sent } from './sending.js';

/** The summary on stderr; then the error that gives the exit code, or the --json document of a run that ended well. */
export async function summarise(cmd: Command, open: OpenRun, checked: Checked, sent: Sent): Promise<void> {
  const { ctx, ui, campaign } = cmd;
  const { run, input, report } = open;
  const { endpoint, apiKey: key } = sendsToOf(open).target;
  const { settings } = campaign.where;
  const { result: r, summary } = sent;
  printSummary(ui, summary, r, sent.seconds);
  if (summary.stopped === 'limit') printLimitStop(ui, campaign.spend.limit ?? 0, r.notSent, summary.resume);
  // What the receipts already say of the rows left in doubt, for the hint (they settle doubt).
  const receipts = r.inDoubt > 0 ? await settleInDoubt(stateDir(ctx.env, ctx.cwd), await readRunDetail(run.journalPath, FLAG.resume)).catch(() => undefined) : undefined;
  const clean = (s: string): string => redact(ctx.stderr.isTTY === true ? showControls(s) : s, key);
  const err = summaryError(summary, r, {
    reportPath: sent.reportWritten ? report?.path : undefined,
    clean,
    spaceNeeded: spaceToResumeIn(r.fullFolder ?? dirname(run.journalPath), run.journalPath, report?.path, input.identity.size, Math.ceil(r.notSent / checked.shape.batchSize), checked.pre.rows),
    address: { endpoint, baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) },
    restart: campaign.rerun.baseUrlFixed,
    resend: buildResumeCommand(resumeWithOf(campaign, run), run.fileAbs, input.stdin, run.journalPath, { resendInDoubt: true }),
    receipts,
  });
  if (err !== undefined) throw err;
  if (campaign.output.json) ctx.stdout.write(`${JSON.stringify(successDocument(summary), null, 2)}\n`);
}
