// argv → options for `send` (and the connection part shared with `send-bulk`). Commander gives
// strings; zod turns them into typed options, naming the flag in every error.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

const optionalString = z.string().optional();
const list = z.array(z.string()).optional();

export const ConnectionOptionsSchema = z.object({
  profile: optionalString,
  baseUrl: optionalString,
  account: optionalString,
  apiKeyFile: optionalString,
  apiKeyStdin: z.boolean().optional(),
  timeout: z
    .string()
    .optional()
    .transform((v, c) => {
      if (v === undefined) return 30_000;
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0 || n > 3600) {
        c.addIssue({ code: 'custom', message: `--timeout: "${v}" is not a number of seconds between 0 and 3600` });
        return z.NEVER;
      }
      return Math.round(n * 1000);
    }),
  caFile: optionalString,
  sandbox: z.boolean().optional(),
  json: z.boolean().optional(),
  quiet: z.boolean().optional(),
  verbose: z.boolean().optional(),
  yes: z.boolean().optional(),
});
export type ConnectionOptions = z.infer<typeof ConnectionOptionsSchema>;

export const MessageOptionsSchema = z.object({
  channel: optionalString,
  from: optionalString,
  text: optionalString,
  textFile: optionalString,
  template: optionalString,
  meta: list,
  name: optionalString,
  characterSet: optionalString,
  messageType: optionalString,
  validity: optionalString,
  defaultCountry: optionalString,
  dryRun: z.boolean().optional(),
});

export const SendOptionsSchema = ConnectionOptionsSchema.extend(MessageOptionsSchema.shape).extend({
  to: list,
  contact: list,
  var: list,
  input: optionalString,
});
export type SendOptions = z.infer<typeof SendOptionsSchema>;

/** Parses commander's option bag; a zod failure here is a usage error naming the flag. */
export function parseOptions<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.infer<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => (i.message.startsWith('--') ? i.message : `--${i.path.join('.')}: ${i.message}`));
  throw new UsageError(lines.join('\n'));
}

/** Splits repeated, comma-separated list values: `--to a,b --to c` → [a, b, c]. */
export function splitList(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Reads a file named by a flag, with an error that names the flag and the file. */
export async function readFlagFile(flag: string, path: string, ctx: Context): Promise<string> {
  if (path === '-') return readStdin(ctx);
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? 'error');
    throw new UsageError(`${flag}: cannot read ${path} (${why})`);
  }
}

export async function readStdin(ctx: Context): Promise<string> {
  let text = '';
  for await (const chunk of ctx.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}
