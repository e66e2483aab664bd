// Checks a base URL before it is saved in a profile, by exactly the rules the sender applies
// (docs/contract.md: "Security", "Requests"): https, or plain http only to a loopback host; no
// credentials; not ending in the `/v2` msgr appends.
import { UsageError } from '../errors.js';
import { messagesEndpoint, versionInBase, versionInBaseError } from '../http/endpoint.js';

/**
 * Returns the URL as it will be saved (no trailing slash), or throws naming the flag. `fix`: the
 * command that saves the base URL as it should be, for a refusal of one ending in `/v2`.
 */
export function checkBaseUrl(input: string, flag = '--base-url', fix?: (fixed: string) => string): string {
  const versioned = versionInBase(input);
  if (versioned !== undefined && fix !== undefined) {
    // The scheme and host rules first: the command offered must be one that is then accepted.
    messagesEndpoint(versioned.fixed, flag);
    throw versionInBaseError(flag, input, versioned, `Save it without ${versioned.suffix}: ${fix(versioned.fixed)}`);
  }
  messagesEndpoint(input, flag);
  const url = new URL(input.trim());
  // The sender drops these silently; in a saved profile they are a mistake worth showing.
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(`${flag}: "${input}" has a query or fragment; give the base URL only`, { hint: 'For example https://api.example.com' });
  }
  return url.toString().replace(/\/+$/, '');
}
