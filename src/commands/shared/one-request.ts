// How `send` and `api` treat a signal while their one request is out (docs/unattended.md: "Stopping").
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { quitAtOnce, stopName, type Ui } from '../../output/ui.js';

/**
 * Sends the one request of `send` or `api`. From here a signal (Ctrl-C, SIGTERM, SIGHUP) waits for
 * its answer, at most `timeoutMs`, and the command ends with that answer's exit code: a message
 * whose fate is known is reported as such, so a supervisor never sends an accepted one again. A
 * retry not yet started is dropped (`stopRetries`): not sent. Only a second Ctrl-C abandons the
 * request; its outcome is then unknown, exit 6, not 130, which a script would read as "not sent"
 * and send it again.
 */
export async function awaitAnswer<T>(ctx: Context, ui: Ui, timeoutMs: number, request: (stopRetries: AbortSignal) => Promise<T>): Promise<T> {
  let answered = false;
  ctx.enableGracefulInterrupt(() => ({ inDoubt: !answered, inDoubtCode: ExitCode.OUTCOME_UNKNOWN }));
  const onStop = (): void => ui.info(`${stopName(ctx.interrupt.reason)}: waiting for the answer to the request in flight (at most ${timeoutMs / 1000} s); ${quitAtOnce(ctx.interrupt.reason)} (its outcome would then be unknown)`);
  ctx.interrupt.addEventListener('abort', onStop, { once: true });
  try {
    return await request(ctx.interrupt);
  } finally {
    answered = true;
    ctx.interrupt.removeEventListener('abort', onStop);
  }
}
