// src/bulk/compose/: what each row is sent. run-message.ts (this file) is the run's message, one
// shared text or one per row; base-request.ts builds the request without recipients and its frame;
// personalise.ts renders a row's message; grouping.ts puts rows with the same message into
// requests; definition.ts says when two runs sent "the same message". It imports input/ and
// journal/.
//
// What a bulk run sends, as the preflight, the printers and the send pass use it: one shared text
// (its SMS parts counted once, and checked against --max-parts before the file is read), or a
// message per row (docs/personalised.md: "Personalised messages"; the per-row rules are bulk/compose/personalise.ts).
import type { Channel } from '../../message/channel.js';
import { UsageError } from '../../errors.js';
import { singleBraceColumns } from '../../message/placeholders.js';
import { analyseText, type TextAnalysis } from '../../message/segments.js';
import { messageText, requestFrame } from './base-request.js';
import { frameForKey, isPersonal, planRowMessage, type MessageSource, type RowMessagePlan } from './personalise.js';
import type { PersonalSpec } from '../journal/records.js';
import { FLAG } from '../flag-names.js';

type Frame = { prefix: string; suffix: string };

export interface RunMessage {
  /** The request without recipients, as the journal has it. */
  readonly request: Record<string, unknown>;
  /** Set when rows have messages of their own. */
  readonly personal: MessageSource | undefined;
  /** One shared text's encoding and parts; undefined for a template or messages per row. */
  readonly textAnalysis: TextAnalysis | undefined;
  /** The frame of every request with one shared message. */
  readonly frame: Frame;
  /** The frame of a grouping key's requests, with messages per row. */
  readonly frameOf: ((key: string) => Frame) | undefined;
  /** The frame of the request the first batch (grouping key `firstKey`, if any) goes in. */
  firstFrame(firstKey: string | undefined): Frame;
  /** The per-row plan tied to the file's header (undefined with one shared message). */
  rowPlan(header: readonly string[], fileLabel: string): RowMessagePlan | undefined;
  /** `{name}` in the text where `{{name}}` (a column) was probably meant. */
  singleBraceWarnings(header: readonly string[]): string[];
}

/**
 * The run's message (`request`, from the campaign or the journal) and how rows shape it (`spec`,
 * absent in journals older than messages per row); `textFlag` names the flag the text came from.
 */
export function runMessage(request: Record<string, unknown>, spec: PersonalSpec | undefined, textFlag: string): RunMessage {
  const text = messageText(request);
  const source: MessageSource | undefined = spec !== undefined ? { text, textFlag, channel: request.channel as Channel, spec } : undefined;
  const personal = source !== undefined && isPersonal(source) ? source : undefined;
  if (personal === undefined && text !== undefined && spec?.maxParts != null) {
    const parts = analyseText(text).parts;
    if (parts > spec.maxParts) throw new UsageError(`the text takes ${parts} SMS parts, more than ${FLAG.maxParts} ${spec.maxParts}; nothing was sent`, { hint: `Shorten the text, or raise ${FLAG.maxParts}.` });
  }
  const frame = requestFrame(request);
  const frameOf = personal !== undefined ? (key: string): Frame => frameForKey(request, key) : undefined;
  return {
    request,
    personal,
    // One shared text: its parts once; messages of their own: counted per row by the preflight.
    textAnalysis: personal === undefined && text !== undefined ? analyseText(text) : undefined,
    frame,
    frameOf,
    firstFrame: (firstKey) => (firstKey !== undefined ? frameForKey(request, firstKey) : frame),
    rowPlan: (header, fileLabel) => (personal !== undefined ? planRowMessage(header, personal, fileLabel) : undefined),
    singleBraceWarnings: (header) =>
      text !== undefined && spec?.render === true
        ? singleBraceColumns(text, header).map((name) => `${textFlag}: {${name}} is sent as written; write {{${name}}} to put each row's ${name} in the text`)
        : [],
  };
}
