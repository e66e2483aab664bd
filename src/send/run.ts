import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export function runSend(_ctx: Context, _opts: Record<string, unknown>): Promise<void> {
  return Promise.reject(new UsageError('not yet'));
}
