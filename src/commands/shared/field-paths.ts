// `--message-id-field data.id` and the like: dotted paths naming an event's fields where the
// common names miss them (docs/events.md: "Field names"), for every command that reads events.
import { UsageError } from '../../errors.js';
import type { FieldPaths } from '../../events/fields.js';
import { str, type Raw } from './option-values.js';

const FLAGS = [['eventIdField', 'eventId'], ['messageIdField', 'messageId'], ['statusField', 'status'], ['numberField', 'number'], ['fromField', 'from'], ['textField', 'text']] as const;

export function fieldPaths(raw: Raw): FieldPaths {
  const out: Record<string, string> = {};
  for (const [flag, key] of FLAGS) {
    const v = str(raw, flag);
    if (v === undefined) continue;
    if (!/^[^.\s]+(\.[^.\s]+)*$/.test(v)) throw new UsageError(`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: "${v}" is not a dotted path`, { hint: 'Name the field by its keys, joined with dots: data.status, payload.message.id, items.0.id' });
    out[key] = v;
  }
  return out;
}
