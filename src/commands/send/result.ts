// What `msgr send` tells a person at a terminal once the API accepted the message: how many
// recipients, the message ids the answer has (the API's answer is not specified: found where
// they can be, docs/api.md), and where it went (profile, account, API). Scripts (stdout not a
// terminal) get the answer itself, as before (docs/contract.md: "Streams").
import type { ChalkInstance } from 'chalk';
import { extractMessageIds } from '../../http/message-ids.js';
import { showControls } from '../../output/sanitize.js';
import { wrap } from '../../output/wrap.js';
import { describeSource, type Resolved, type Settings } from '../../settings/resolve.js';

export interface AcceptedSend {
  readonly status: number;
  /** The parsed answer (key already redacted), when it was JSON. */
  readonly body: unknown;
  /** The numbers sent to, in request order; contacts are counted apart. */
  readonly numbers: readonly string[];
  readonly contacts: number;
  /** Numbers given and left out as opted out (said in warnings before). */
  readonly suppressed?: number;
  readonly settings: Settings;
  /** The account the request carried (it may come from --input). */
  readonly account: Resolved<string | undefined>;
  /** The API's host, or undefined for --sandbox. */
  readonly host: string | undefined;
}

/** Ids listed before "… and N more". */
const SHOWN_IDS = 5;

/** The lines for a terminal `width` columns wide (output/wrap.ts), each value wrapping under itself. */
export function acceptedLines(a: AcceptedSend, color: ChalkInstance, columns?: number): string {
  const recipients = a.numbers.length + a.contacts;
  const suppressed = a.suppressed ?? 0;
  const count = suppressed > 0 ? `${recipients} of ${recipients + suppressed} recipients (HTTP ${a.status}); ${suppressed} left out: opted out` : `${recipients} recipient${recipients === 1 ? '' : 's'} (HTTP ${a.status})`;
  const out = [`${color.green('✔')} Accepted for ${count}; accepted is not yet delivered.`];
  const ids = extractMessageIds(a.body, a.numbers);
  const found = a.numbers.flatMap((n, i) => (ids[i] !== undefined ? [[showControls(ids[i]), n] as const] : []));
  const width = Math.max(0, ...found.slice(0, SHOWN_IDS).map(([id]) => id.length));
  for (const [id, number] of found.slice(0, SHOWN_IDS)) out.push(`  message id  ${id.padEnd(width)}  ${number}`);
  if (found.length > SHOWN_IDS) out.push(`  … and ${found.length - SHOWN_IDS} more message ids (--json prints the API's whole answer)`);
  const p = a.settings.profile;
  const profile = p.value === undefined ? (a.host === undefined ? 'none (--sandbox)' : 'none: flags and environment') : `${p.value} (${p.source === 'profile' ? `the ${p.origin ?? 'profile'}` : describeSource(p)})`;
  out.push(`  profile     ${profile}`);
  const acc = a.account;
  const accountFrom = acc.source === 'profile' || acc.value === undefined ? '' : ` (${acc.source === 'default' ? "the sandbox's" : describeSource(acc)})`;
  out.push(`  account     ${acc.value ?? 'none'}${accountFrom}`);
  out.push(`  sent to     ${a.host ?? 'the built-in sandbox; nothing is delivered'}`);
  return `${out.map((line, i) => wrap(line, columns, { hang: i === 0 ? 2 : 12 })).join('\n')}\n`;
}
