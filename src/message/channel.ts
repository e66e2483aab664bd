// Channels (docs/api.md: "Channels": SMS and RCS; WhatsApp, email and voice are "coming soon").
import { isBlank } from './invisible.js';
export type Channel = 'SMS' | 'RCS';

const NOT_YET = new Set(['WHATSAPP', 'EMAIL', 'VOICE']);

export type ChannelResult = { ok: true; value: Channel } | { ok: false; reason: string };

export function parseChannel(input: string): ChannelResult {
  const upper = input.trim().toUpperCase();
  if (upper === 'SMS' || upper === 'RCS') return { ok: true, value: upper };
  if (NOT_YET.has(upper)) return { ok: false, reason: `${input.trim()} is not available yet through the API; use SMS or RCS` };
  return { ok: false, reason: `"${input.trim()}" is not a channel; use SMS or RCS` };
}

/** What an SMS sender id may be, for messages and hints. */
export const SMS_SENDER_RULE = 'a number, or 1 to 11 letters (A-Z without accents), digits or spaces';

/** Whether a sender holds a `{{placeholder}}`: sent as written, never filled in. */
export function senderHasPlaceholder(from: string): boolean {
  return /\{\{[^}]*\}\}/.test(from);
}

/**
 * Sender ids. For SMS: a number (up to 15 digits, optional +) or an alphanumeric id of 1 to 11
 * letters, digits or spaces (the GSM limit). RCS senders are agent names: any printable text.
 */
export function checkSender(from: string, channel: Channel): string | undefined {
  if (isBlank(from)) return 'is empty';
  if (/[\u0000-\u001f\u007f]/.test(from)) return 'has control characters';
  // Not filled in: a sender is sent as written, on either channel.
  if (senderHasPlaceholder(from)) return `"${from}" has a placeholder, which is filled in in a message's text only`;
  if (channel === 'RCS') return undefined;
  if (/^\+?\d{1,15}$/.test(from)) return undefined;
  if (/^[A-Za-z0-9 ]{1,11}$/.test(from) && /[A-Za-z]/.test(from)) return undefined;
  // A number as people write one (spaces, dashes, dots) is said as such, with the form to give:
  // measured as a name, "0800 123" would be "8 characters, at most 11".
  if (/^\+?[\d\s.-]+$/.test(from) && /\d/.test(from)) {
    const compact = from.replace(/[\s.-]/g, '');
    return /^\+?\d{1,15}$/.test(compact) ? `"${from}" is a number with spaces or punctuation: write it as ${compact}` : `"${from}" is not an SMS sender id: a number has at most 15 digits`;
  }
  if (/^[A-Za-z0-9 ]+$/.test(from)) return `"${from}" is ${from.length} characters: an SMS sender name has at most 11 letters, digits or spaces`;
  return `"${from}" is not an SMS sender id: use ${SMS_SENDER_RULE}`;
}
