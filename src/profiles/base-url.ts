// Checks a base URL before it is saved in a profile, by exactly the rules the sender applies
// (docs/contract.md: "Security"): https, or plain http only to a loopback host; no credentials.
import { UsageError } from '../errors.js';
import { messagesEndpoint } from '../http/endpoint.js';

/** Returns the URL as it will be saved (no trailing slash), or throws naming the flag. */
export function checkBaseUrl(input: string, flag = '--base-url'): string {
  messagesEndpoint(input, flag);
  const url = new URL(input.trim());
  // The sender drops these silently; in a saved profile they are a mistake worth showing.
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${flag}: "${input}" has a query or fragment; give the base URL only`, { hint: 'For example https://api.example.com' });
  }
  return url.toString().replace(/\/+$/, '');
}
