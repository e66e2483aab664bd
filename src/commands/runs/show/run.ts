// `msgr runs show`: one run, its totals, what its receipts say, the batches in doubt, and how
// to continue it; data on stdout (or --json), people's lines on stderr.
import type { Context } from '../../../context.js';
import { heartbeatStopped } from '../../../files/lock.js';
import { createUi, type Ui } from '../../../output/ui.js';
import { getProfile, loadStore, type Profile } from '../../../profiles/profile-file.js';
import { continueRun, inputChangedSince, showRun, type RunInfo } from '../../../bulk/runs-door.js';
import { formatAge, formatCount } from '../../../output/count.js';
import { showControls } from '../../../output/sanitize.js';
import { lineWidth, wrap } from '../../../output/wrap.js';
import { deliveryJson, describeDelivery, sendingJson } from '../shared.js';
import type { ShowOptions } from './options.js';

/**
 * How the run's last process ended, when none is sending it now (sendingNow): its "stop" line,
 * or, when it wrote none and the run is unfinished, that it was killed or the machine went down.
 */
function stopNote(info: RunInfo, lastStop: string | undefined): string {
  // "finished" is the process's end, not the run's: said so, beside a state that may be "unfinished".
  if (lastStop === 'finished' && !info.finished) return ' (its last process ended on its own, leaving rows not sent or in doubt)';
  if (lastStop !== undefined) return ` (last stop: ${lastStop})`;
  if (info.finished || info.abandoned) return '';
  return ' (its last process wrote no stop: it was killed, or the machine went down)';
}

/** `, 3 suppressed (opt-out store), 2 opted out since it started`, or what the run did with the store. */
function describeSuppressed(s: { readonly atStart: number; readonly sinceStart: number }, store: 'left-out' | 'included' | undefined): string {
  if (store === 'included') return ', the opt-out store included (--include-opted-out)';
  return `${s.atStart > 0 ? `, ${formatCount(s.atStart)} suppressed (opt-out store)` : ''}${s.sinceStart > 0 ? `, ${formatCount(s.sinceStart)} opted out since it started` : ''}`;
}

export async function runShow(ctx: Context, ref: string, opts: ShowOptions): Promise<void> {
  const view = await showRun(ctx, ref, { events: opts.events, fields: opts.fields });
  const { info, header: h, sending, inDoubt } = view;
  // Receipts settle doubt: a batch in doubt every recipient of which has one counts as accepted
  // (docs/reruns.md: "In doubt meets consent"); a resume journals it so.
  const settled = view.settledByReceipts;
  const doc = { ...info, accepted: info.accepted + settled, inDoubt: info.inDoubt - settled, settledByReceipts: settled, status: view.status, sending: sendingJson(sending), message: h.message, skipSent: h.skipSent ?? [], inDoubtBatches: inDoubt, lastStop: view.lastStop ?? null, suppressed: view.suppressed, delivery: deliveryJson(view.delivery) };
  if (opts.json) {
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const lines: Array<[string, string]> = [
    ['run', info.runId],
    [
      'state',
      sending !== undefined && heartbeatStopped(sending)
        ? `stopped (msgr pid ${sending.pid} on ${sending.host}, since ${sending.startedAt}, suspended: no heartbeat for ${formatAge(sending.heartbeatAgeMs ?? 0)}): nothing is being sent until it is continued (kill -CONT ${sending.pid}) or ended (kill ${sending.pid}, then kill -CONT ${sending.pid})`
        : sending !== undefined
        ? `sending now (msgr pid ${sending.pid} on ${sending.host}, since ${sending.startedAt}): a batch without its answer yet is in flight, counted in doubt until it comes`
        : `${view.status}${stopNote(info, view.lastStop)}`,
    ],
    ['journal', view.journal],
    ['file', info.file],
    ['target', view.described.target],
    ['started', `${info.startedAt} by msgr ${info.msgr}`],
    ['message', view.described.text],
    ['from', view.described.from],
    ...(h.once !== undefined ? [['key', `--once ${h.once.key}`] as [string, string]] : []),
    ['rows', `${formatCount(info.rows)}, ${formatCount(info.toSend)} to send${info.alreadySent > 0 ? `, ${formatCount(info.alreadySent)} already sent by ${(h.skipSent ?? []).map((s) => s.runId).join(', ')}` : ''}${describeSuppressed(view.suppressed, h.optOuts?.store)}`],
    ['accepted', `${formatCount(info.accepted + settled)}${settled > 0 ? ` (${formatCount(settled)} of them left in doubt, but the receipts show every one: a resume records them as accepted, and sends them nothing)` : ''}`],
    ['rejected', formatCount(info.rejected)],
    ['in doubt', formatCount(info.inDoubt - settled)],
    ['not sent', formatCount(info.notSent)],
    ['delivery', describeDelivery(view.delivery)],
  ];
  // On a terminal each value wraps under itself (output/wrap.ts); on a pipe, whole lines.
  const width = lineWidth(ctx.stdout);
  const w = Math.max(...lines.map(([k]) => k.length));
  let out = lines.map(([k, v]) => wrap(`${k.padEnd(w)}  ${v}`, width, { hang: w + 2 })).join('\n');
  for (const b of inDoubt.slice(0, 20)) {
    const receipts = b.settled ? ': settled, every recipient has a receipt (accepted)' : b.withReceipt > 0 ? `; receipts for ${b.withReceipt} of ${b.recipients}` : '';
    out += `\n${wrap(`${b.settled ? 'was in doubt' : 'in doubt'}: batch ${b.batch} (${b.recipients} recipient${b.recipients === 1 ? '' : 's'} from line ${b.firstLine ?? '?'}, Idempotency-Key ${b.idempotencyKey})${b.numbers.length > 0 ? `: ${b.numbers.slice(0, 5).join(', ')}${b.numbers.length > 5 ? ', …' : ''}` : ''}${receipts}`, width)}`;
  }
  if (inDoubt.length > 20) out += `\n… and ${inDoubt.length - 20} more batches in doubt`;
  // File names, message texts and what receipts say are not msgr's own words: made visible.
  ctx.stdout.write(`${showControls(out)}\n`);
  const ui = createUi(ctx, opts);
  if (sending !== undefined) {
    ui.info(`it is sending now; once it ends, \`msgr runs show ${info.runId}\` says what it left, and how to continue`);
  } else if (!info.finished && !info.abandoned && inputChangedSince(view)) {
    // A --resume would be refused: the file is not the data the run started with.
    ui.info(`its file ${showControls(view.header.input.path)} changed since the run started, so it cannot be resumed: put the file back as it was to resume it, or start over with send-bulk --restart and the message given again`);
  } else if (!info.finished && !info.abandoned) {
    const next = continueRun(ctx, view, (name) => savedProfile(ctx, name, ui));
    // Without a profile (or with another key than the profile's) the key came from the
    // environment or a file the journal does not name.
    const key = next.otherKey ? ' (with the API key as the run had it: MSGR_API_KEY, --api-key-file or --api-key-stdin)' : '';
    ui.info(`continue it with: ${next.command}${key}`);
  }
}

/** The profile as saved now; undefined when it is gone or the store cannot be read (the command then names everything). */
function savedProfile(ctx: Context, name: string, ui: Ui): Profile | undefined {
  try {
    return getProfile(loadStore(ctx, (line) => ui.warn(line)).data, name);
  } catch {
    return undefined;
  }
}
