// The question before sending, or the production guard's stop (the door: bulk/campaign-door.ts).
import { InterruptedError } from '../../errors.js';
import type { Resolved } from '../../settings/resolve.js';
import { interruptedBeforeSending } from '../display/summary.js';
import type { Command, OpenRun } from './opening.js';
import { checkpoint, type Checked } from './checking.js';

/**
 * The question before sending on a terminal, or the production guard's stop without one (not for
 * the sandbox, nor with nothing to send): for the run's account, as its journal has it on a resume.
 */
export async function confirm(cmd: Command, open: OpenRun, checked: Checked): Promise<void> {
  const { ctx, campaign } = cmd;
  const { run, plan } = open;
  const { settings, sandbox } = campaign.where;
  const purpose = campaign.purpose;
  const recipients = purpose.kind === 'sample' && open.sampleTo !== undefined ? checked.pre.firstRows.length * open.sampleTo.length : (checked.left ?? checked.pre.toSend);
  if (!sandbox && recipients > 0) {
    const { confirmSend } = await import('../../settings/confirm.js');
    const journaled: Resolved<string | undefined> = { value: String(plan.message.accountReference), source: 'flag', origin: `journal of run ${run.runId}` };
    // A stop at the question (Ctrl-C, SIGTERM) is one before anything was sent, as at a checkpoint.
    await confirmSend(ctx, settings, { recipients, yes: campaign.output.yes, account: journaled.value === settings.account.value ? settings.account : journaled }).catch((err: unknown) => {
      throw err instanceof InterruptedError ? interruptedBeforeSending(run, err) : err;
    });
  }
  checkpoint(ctx, run);
}
