// Files named by a flag (`--input PATH`, '-' for stdin), read with an error that names the flag
// and the file: for every command that reads one.
import type { Context } from '../../context.js';
import { fileHint, fileProblem, UsageError } from '../../errors.js';

/** Reads a file named by a flag, with an error that names the flag and the file. */
export async function readFlagFile(flag: string, path: string, ctx: Context): Promise<string> {
  if (path === '-') return readStdin(ctx);
  try {
    return await (await import('node:fs/promises')).readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path} (${fileProblem(err)})`, { hint: fileHint(err) });
  }
}

export async function readStdin(ctx: Context): Promise<string> {
  let text = '';
  for await (const chunk of ctx.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}
