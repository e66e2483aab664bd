// The sandbox's own 202 body (the real API's is not known: docs/api.md, "Endpoint"). It is a pure
// function of the validated request and the batch token, which is what lets the idempotency
// cache keep only the token and rebuild the same answer for a replay of the same body.
import { deliveryFor } from './rcs.js';
import type { ValidMessageRequest } from './validate.js';

export interface AcceptedSummary {
  readonly recipients: number;
  readonly contacts: number;
  /** Recipients that asked for RCS and get SMS. */
  readonly fallbacks: number;
}

export function batchIdFor(token: string): string {
  return `sbx_b_${token}`;
}

/** Message ids are the batch token and the entry's index: recipients first, then contacts. */
export function messageIdFor(token: string, index: number): string {
  return `${messageIdPrefix(token)}${index}`;
}

function messageIdPrefix(token: string): string {
  return `sbx_m_${token}_`;
}

/**
 * Serialises the answer by hand: 10,000 entries per request on the benchmark path, and every
 * interpolated value is either validated (msisdn, channel) or passed through JSON.stringify.
 */
export function buildAcceptedBody(
  request: ValidMessageRequest,
  token: string,
  receivedAt: string,
): { body: string; summary: AcceptedSummary } {
  const channel = request.channel;
  const recipients = request.recipients ?? [];
  const contacts = request.addressBook?.contacts ?? [];
  let fallbacks = 0;
  // One string grown in place (10,000 entries: cheaper than an array of parts and a join).
  const idHead = `{"id":"${messageIdPrefix(token)}`;
  let messages = '';
  for (let i = 0; i < recipients.length; i++) {
    const msisdn = (recipients[i] as { msisdn: string }).msisdn;
    const d = deliveryFor(channel, msisdn);
    if (d.fallback) fallbacks += 1;
    messages += `${i > 0 ? ',' : ''}${idHead}${i}","msisdn":"${msisdn}","channel":"${d.channel}","fallback":${d.fallback},"status":"accepted"}`;
  }
  let contactList = '';
  for (let j = 0; j < contacts.length; j++) {
    const id = (contacts[j] as { id: string }).id;
    const d = deliveryFor(channel, id);
    if (d.fallback) fallbacks += 1;
    contactList += `${j > 0 ? ',' : ''}${idHead}${recipients.length + j}","contactId":${JSON.stringify(id)},"channel":"${d.channel}","fallback":${d.fallback},"status":"accepted"}`;
  }
  const body =
    `{"batchId":"${batchIdFor(token)}","status":"accepted","channel":"${channel}","receivedAt":"${receivedAt}","sandbox":true,` +
    `"messages":[${messages}],"contacts":[${contactList}]}`;
  return { body, summary: { recipients: recipients.length, contacts: contacts.length, fallbacks } };
}
