// Where a bulk run sends, as its journal records it: base URL, account, profile, sandbox or not,
// and a fingerprint of the key (never the key). A resumed run must send where the run started
// (docs/files.md: "Run identity"): a run begun against the sandbox, a test server or another
// account is never finished against the real one as if its rows had been sent there.
import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { baseUrlOf, messagesEndpoint } from '../../http/endpoint.js';
import type { Ui } from '../../output/ui.js';
import type { Settings } from '../../settings/resolve.js';
import type { Target } from '../../settings/target.js';
import type { JournaledTarget, PersonalSpec, RunHeader } from '../journal/records.js';
import { shellQuote } from '../../output/shell.js';
import { maskUrl, quoted } from '../../output/sanitize.js';
import { SANDBOX_URL, type Place } from '../../once/keys.js';
import { FLAG } from '../flag-names.js';

/**
 * 12 hex characters of SHA-256 over a domain-separated string: enough to tell two keys apart,
 * useless for guessing one, and not the hash anything else would compute of the key.
 */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(`msgr journal key fingerprint v1\0${apiKey}`).digest('hex').slice(0, 12);
}

export interface TargetParts {
  readonly endpoint: URL;
  readonly apiKey: string;
  readonly sandbox: boolean;
  readonly profile: string | undefined;
  /** The accountReference the requests carry. */
  readonly account: string | undefined;
}

export function journaledTarget(t: TargetParts): JournaledTarget {
  return {
    baseUrl: t.sandbox ? SANDBOX_URL : baseUrlOf(t.endpoint),
    account: t.account ?? null,
    profile: t.profile ?? null,
    sandbox: t.sandbox,
    keyFingerprint: keyFingerprint(t.apiKey),
  };
}

/** Whether a base URL as given (a profile's) is the one a journal records; false when it is not a valid one. */
export function sameBaseUrl(given: string, journaled: string): boolean {
  try {
    return baseUrlOf(messagesEndpoint(given)) === journaled;
  } catch {
    return false;
  }
}

/**
 * Whether a journal's target is this place: the same API and account (another key is the same
 * place: keyChange). A journal of an earlier msgr does not say where it sent: taken as the same,
 * so that a run of its file again is not let through by what cannot be known.
 */
export function samePlace(was: JournaledTarget | undefined, now: Place): boolean {
  if (was === undefined) return true;
  if (was.sandbox !== now.sandbox || was.account !== now.account) return false;
  return now.sandbox || now.baseUrl === undefined || was.baseUrl === now.baseUrl;
}

/** One line for people: `https://eu.api.example.com, account ACME01, profile prod, key 3fa9c2d1e0b7`. */
export function describeTarget(t: JournaledTarget | undefined): string {
  if (t === undefined) return 'unknown (the journal was written by an earlier msgr)';
  const where = t.sandbox ? 'the sandbox' : t.baseUrl;
  return `${where}, account ${t.account ?? '(none)'}${t.profile !== null ? `, profile ${t.profile}` : ''}, key ${t.keyFingerprint}`;
}

/**
 * What makes two targets different places, for people; empty when they are the same. The
 * recipients' messages go to an API (base URL, or the sandbox) for an account: those decide. A
 * new key for the same account is not another place (a refused key replaced, a rotated one): see
 * keyChange.
 */
export function targetDifferences(was: JournaledTarget, now: JournaledTarget): string[] {
  const out: string[] = [];
  if (was.sandbox !== now.sandbox) out.push(was.sandbox ? 'it ran against the sandbox, this run sends for real' : 'it sent for real, this run sends to the sandbox');
  else if (!was.sandbox && was.baseUrl !== now.baseUrl) out.push(`base URL ${maskUrl(was.baseUrl)} then, ${maskUrl(now.baseUrl)} now`);
  if (was.account !== now.account) out.push(`account ${was.account ?? '(none)'} then, ${now.account ?? '(none)'} now`);
  return out;
}

/** A note when the same API and account are reached with another key; undefined otherwise. */
export function keyChange(was: JournaledTarget | undefined, now: JournaledTarget): string | undefined {
  if (was === undefined || was.sandbox || now.sandbox || was.keyFingerprint === now.keyFingerprint) return undefined;
  return `the API key differs from the one run started with (fingerprint ${was.keyFingerprint} then, ${now.keyFingerprint} now); same base URL and account, so the run goes on`;
}

/**
 * A resumed run sends where the run started, or not at all. The account is the journal's (the
 * requests carry the journal's message): one given now must be the same. Journals of earlier
 * msgr versions do not say where they sent: the caller is told, and says so.
 */
export function checkResumeTarget(header: RunHeader, now: JournaledTarget, accountGiven: boolean): { known: boolean; note?: string } {
  const was = header.target;
  if (was === undefined) return { known: false };
  const current: JournaledTarget = accountGiven ? now : { ...now, account: was.account };
  const diffs = targetDifferences(was, current);
  if (diffs.length > 0) {
    throw new UsageError(
      `${FLAG.resume}: run ${header.runId} sent to ${describeTarget(was)}; this run would send to ${describeTarget(current)} (${diffs.join('; ')}); nothing was sent`,
      {
        hint:
          `Resume with the settings the run started with${resumeFlagsFor(was, current)}. ` +
          `To send the rest of the file to this target on purpose, start a new run with ${FLAG.restart}: it leaves out the rows the abandoned run had accepted (add ${FLAG.includeSent} if that run only went to a test system, so they are sent here too).`,
      },
    );
  }
  const note = keyChange(was, current);
  return note !== undefined ? { known: true, note } : { known: true };
}

/**
 * The flags that bring a resume back to the run's target, for the refusal's hint: the profile,
 * and the base URL or account the run had where they differ now (a flag or the environment gave
 * them then, so the profile alone does not).
 */
function resumeFlagsFor(was: JournaledTarget, now: JournaledTarget): string {
  if (was.sandbox) return ` (add ${FLAG.sandbox})`;
  const flags: string[] = [];
  if (was.profile !== null) flags.push(`${FLAG.profile} ${shellQuote(was.profile)}`);
  if (now.sandbox || was.baseUrl !== now.baseUrl) flags.push(`${FLAG.baseUrl} ${shellQuote(was.baseUrl)}`);
  if (was.account !== null && was.account !== now.account) flags.push(`${FLAG.account} ${shellQuote(was.account)}`);
  return flags.length > 0 ? ` (e.g. ${flags.join(' ')})` : '';
}

/** Checks a resume's target against its journal's (refusing another one) and says what it sends where. */
export function announceResume(ui: Pick<Ui, 'info' | 'warn'>, runId: string, header: RunHeader, now: JournaledTarget, message: Record<string, unknown>, accountGiven: boolean, personal?: PersonalSpec): void {
  const { known, note } = checkResumeTarget(header, now, accountGiven);
  if (note !== undefined) ui.warn(note.replace('the one run', `the one run ${runId}`));
  if (!known) ui.warn(`run ${runId}'s journal does not say where it sent (an earlier msgr wrote it): resuming against ${describeTarget(now)}; make sure that is where it started`);
  ui.info(`resuming run ${runId} with its journal's message exactly (${describeMessage(message, personal)}) to ${describeTarget(now)}`);
}

/**
 * `text "Hello there", from Acme, account ACME01`, or `a text per row (column msg), a sender per
 * row (column sender), account ACME01`: what a resumed run sends, for people; only what it has.
 */
function describeMessage(message: Record<string, unknown>, personal: PersonalSpec | undefined): string {
  const text = describeText(message, personal, 40);
  const sender = describeSender(message, personal);
  const from = sender === undefined || personal?.fromColumn != null ? sender : `from ${sender}`;
  const account = typeof message.accountReference === 'string' ? `account ${message.accountReference}` : undefined;
  return [text, from, account].filter((s) => s !== undefined).join(', ');
}

/** A run's text or template, for people (`msgr runs show`, a resume); undefined when the message has neither. */
export function describeText(message: Record<string, unknown>, personal: PersonalSpec | undefined, maxChars = Number.POSITIVE_INFINITY): string | undefined {
  if (personal?.textColumn != null) return `a text per row (column ${personal.textColumn})`;
  const body = (message.body ?? {}) as { text?: unknown; templateId?: unknown };
  if (typeof body.text === 'string') return `text ${quoted(body.text.length > maxChars ? `${body.text.slice(0, maxChars)}…` : body.text)}`;
  return typeof body.templateId === 'string' || typeof body.templateId === 'number' ? `template ${String(body.templateId)}` : undefined;
}

/** A run's sender, for people; undefined when the message has none. */
export function describeSender(message: Record<string, unknown>, personal: PersonalSpec | undefined): string | undefined {
  if (personal?.fromColumn != null) return `a sender per row (column ${personal.fromColumn})`;
  return typeof message.from === 'string' ? message.from : undefined;
}

/**
 * What a run's journal records of where it sends. A resumed run's requests carry the journal's
 * account (`message`'s): an account given now is what it is checked against.
 */
export function runTargetOf(target: Pick<Target, 'endpoint' | 'apiKey' | 'sandbox'>, settings: Pick<Settings, 'profile' | 'account'>, message: Record<string, unknown>, resuming: boolean): JournaledTarget {
  const journaled = typeof message.accountReference === 'string' ? message.accountReference : undefined;
  return journaledTarget({ endpoint: target.endpoint, apiKey: target.apiKey, sandbox: target.sandbox, profile: settings.profile.value, account: resuming ? (settings.account.value ?? journaled) : journaled });
}
