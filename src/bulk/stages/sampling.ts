// --sample-to (the door: bulk/campaign-door.ts): the first rows' messages to the sample numbers, a run of their own.
import { describeSource } from '../../settings/resolve.js';
import { newRunId } from '../journal/run-keys.js';
import { resumeRefusal } from '../this-run/resume-checks.js';
import { runTargetOf } from '../this-run/where.js';
import { definitionOf } from '../this-run/run-plan.js';
import { restartSendsToAll } from '../earlier/already-sent.js';
import { runSamples, type UnfinishedRun } from '../send-pass/samples.js';
import { clientsFor, sendsToOf, type Command, type OpenRun } from './opening.js';
import type { Checked } from './checking.js';

/**
 * --sample-to: the first rows' messages to the sample numbers, as a run of their own (its own run
 * id and keys, no journal); beside an unfinished run, the command that goes on with the campaign.
 */
export async function sample(cmd: Command, open: OpenRun, checked: Checked): Promise<void> {
  const { ctx, ui, campaign } = cmd;
  const to = sendsToOf(open);
  const { target } = to;
  const newClient = await clientsFor(cmd, to);
  const { run, plan, input } = open;
  const { settings } = campaign.where;
  const { pre } = checked;
  const numbers = open.sampleTo;
  if (numbers === undefined) throw new Error('send-bulk: a sample without numbers');
  const unfinished = run.kind === 'new' ? run.unfinished : undefined;
  // Beside an unfinished run, the sample names the command that goes on with the campaign.
  const unfinishedRun: UnfinishedRun | undefined =
    unfinished === undefined
      ? undefined
      : {
          runId: unfinished.header.runId,
          sending: unfinished.sending,
          resumeRefusal: resumeRefusal(ctx, campaign, unfinished.header, runTargetOf(target, settings, unfinished.header.message, true), settings.account.value !== undefined, pre.hash),
          restartSendsToAll: restartSendsToAll(unfinished.header, definitionOf(plan), to.journaled),
        };
  const address = target.sandbox ? undefined : { method: 'POST', url: target.endpoint, built: '{base_url}/v2/messages', baseUrl: settings.baseUrl.value, source: describeSource(settings.baseUrl) };
  const s = { runId: `sample-${newRunId(ctx.now())}`, message: plan.message, rows: pre.firstRows, to: numbers, fileLabel: input.label, json: campaign.output.json, apiKey: target.apiKey, tty: ctx.stderr.isTTY === true, unfinished: unfinishedRun, address, rerun: campaign.rerun };
  return runSamples(ctx, ui, { ...s, client: newClient({ connections: 1 }) });
}
