// A network failure in words for people (`connection refused`, `timed out connecting`), the one
// wording for every request msgr makes: to the API (./client.ts) and outside it, forwarded and
// replayed events and triggers (./provider.ts). Which failures are retried or in doubt is
// ./outcome.ts's (classifyNetworkError); this says what happened.
import { TUNNEL_CODE } from './outcome.js';
import { describeTunnelFailure, TunnelError } from './proxy.js';
import { isTlsCode, tlsFailureOf, TLS_FAILURE_TEXT } from './trust.js';

/** What became of a request that got no answer, by its error's code (outcome.ts: errorCode). */
export function describeNetworkError(err: unknown, code: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  switch (code) {
    case TUNNEL_CODE:
      return err instanceof TunnelError ? describeTunnelFailure(err.failure).message : msg;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return 'host name not found (DNS)';
    case 'EAI_AGAIN':
      return 'DNS did not answer (a temporary failure)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to the host (${code})`;
    case 'EADDRNOTAVAIL':
      return `no local address to connect from (${code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out waiting for the answer';
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was closed before an answer came';
    default:
      if (isTlsCode(code)) return `${TLS_FAILURE_TEXT[tlsFailureOf(code)]} (${code}): ${tlsReason(err, msg)}`;
      return `${msg} (${code})`;
  }
}

/** OpenSSL's own words (`wrong version number`), not its whole error line with source paths. */
function tlsReason(err: unknown, msg: string): string {
  const reason = err !== null && typeof err === 'object' ? (err as { reason?: unknown }).reason : undefined;
  return (typeof reason === 'string' && reason !== '' ? reason : msg).trim().replace(/:$/, '');
}
