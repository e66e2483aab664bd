// Message ids per recipient from an accepted batch's answer, for the report.
/**
 * Message ids from a 2xx body, per recipient, tolerating shapes the real API might use (its
 * response is not specified): an array of entries (top level, or under messages / recipients /
 * results / data) matched by msisdn, else by position when the count matches.
 */
export function extractMessageIds(body: unknown, numbers: readonly string[]): Array<string | undefined> {
  const ids: Array<string | undefined> = new Array<string | undefined>(numbers.length).fill(undefined);
  if (body === null || typeof body !== 'object') return ids;
  const o = body as Record<string, unknown>;
  const list = Array.isArray(body) ? (body as unknown[]) : [o.messages, o.recipients, o.results, o.data].find((v): v is unknown[] => Array.isArray(v));
  const idOf = (e: unknown): string | undefined => {
    if (e === null || typeof e !== 'object') return undefined;
    const r = e as Record<string, unknown>;
    const v = r.id ?? r.messageId ?? r.message_id ?? r.messageID;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
  };
  if (list === undefined) {
    if (numbers.length === 1) ids[0] = idOf(body);
    return ids;
  }
  // The usual shape: one entry per recipient, in request order (the sandbox's). Checked, not assumed.
  if (list.length === numbers.length) {
    let inOrder = true;
    for (let i = 0; i < list.length && inOrder; i++) {
      const e = list[i];
      const msisdn = e !== null && typeof e === 'object' ? (e as Record<string, unknown>).msisdn : undefined;
      if (msisdn !== undefined && msisdn !== numbers[i]) inOrder = false;
    }
    if (inOrder) {
      for (let i = 0; i < list.length; i++) ids[i] = idOf(list[i]);
      return ids;
    }
  }
  const byNumber = new Map<string, string[]>();
  for (const e of list) {
    const id = idOf(e);
    const msisdn = e !== null && typeof e === 'object' ? (e as Record<string, unknown>).msisdn ?? (e as Record<string, unknown>).to : undefined;
    if (id !== undefined && typeof msisdn === 'string') {
      const q = byNumber.get(msisdn);
      if (q === undefined) byNumber.set(msisdn, [id]);
      else q.push(id);
    }
  }
  if (byNumber.size > 0) {
    for (let i = 0; i < numbers.length; i++) ids[i] = byNumber.get(numbers[i] as string)?.shift();
    return ids;
  }
  return ids;
}
