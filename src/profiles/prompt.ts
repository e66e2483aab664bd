// Prompts on the terminal: a hidden one for the API key, and a y/N confirmation. Questions go
// to stderr (stdout is data). Callers check canPrompt first: msgr never waits for an answer on
// a stdin that is not a terminal, so cron jobs and CI fail fast with a hint instead of hanging.
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { lineWidth, wrap } from '../output/wrap.js';

type Stdin = Context['stdin'] & { setRawMode?: (raw: boolean) => unknown };

export function canPrompt(ctx: Context): boolean {
  return ctx.stdin.isTTY === true;
}

/** Asks for a secret without echoing it. Ctrl-C aborts (exit 130). */
export async function promptHidden(ctx: Context, question: string): Promise<string> {
  // Raw mode first: a key typed the moment the question appears must not be echoed.
  const line = readLine(ctx.stdin, true, ctx.interrupt);
  ctx.stderr.write(fitted(ctx, question));
  const answer = await line;
  ctx.stderr.write('\n');
  return answer;
}

/** Asks a yes/no question; only y or yes (any case) is yes. */
export async function promptYesNo(ctx: Context, question: string): Promise<boolean> {
  ctx.stderr.write(fitted(ctx, `${question} [y/N] `));
  const answer = await readLine(ctx.stdin, false, ctx.interrupt);
  return /^(y|yes)$/i.test(answer.trim());
}

/** A question fitted to the terminal (output/wrap.ts), the space before the answer kept. */
function fitted(ctx: Context, question: string): string {
  const trailing = /\s*$/.exec(question)?.[0] ?? '';
  return `${wrap(question.slice(0, question.length - trailing.length), lineWidth(ctx.stderr))}${trailing}`;
}

/**
 * Reads one line. Hidden: the terminal goes to raw mode (no echo, Ctrl-C arrives as a byte), and
 * backspace, Ctrl-U and pasted text are handled here; escape sequences are dropped. A graceful
 * stop (SIGTERM, SIGHUP: the person may be gone) ends the wait as Ctrl-C does.
 */
function readLine(input: Context['stdin'], hidden: boolean, signal: AbortSignal): Promise<string> {
  const stdin: Stdin = input;
  const raw = hidden && typeof stdin.setRawMode === 'function';
  if (raw) stdin.setRawMode?.(true);
  return new Promise<string>((resolve, reject) => {
    let line = '';
    const finish = (err: Error | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      stdin.removeListener('data', onData);
      stdin.removeListener('end', onEnd);
      stdin.removeListener('error', onError);
      if (raw) stdin.setRawMode?.(false);
      stdin.pause();
      if (err !== undefined) reject(err);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string): void => {
      const text = (typeof chunk === 'string' ? chunk : chunk.toString('utf8')).replace(/\u001b\[[0-9;?]*[~A-Za-z]/g, '');
      for (const ch of text) {
        if (ch === '\r' || ch === '\n') return finish(undefined);
        if (ch === '\u0003') return finish(new InterruptedError('interrupted at the prompt; nothing was changed or sent'));
        if (ch === '\u0004') return finish(undefined);
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else if (ch === '\u0015') line = '';
        else if (ch >= ' ') line += ch;
      }
      return undefined;
    };
    const onEnd = (): void => finish(undefined);
    const onError = (err: Error): void => finish(err);
    const onAbort = (): void => finish(new InterruptedError('interrupted at the prompt; nothing was changed or sent'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}
