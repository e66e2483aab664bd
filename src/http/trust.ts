// What to say when TLS fails: the ways to trust a private or inspecting root (docs/network.md), and the failures a root cannot fix (a certificate for
// another name, one out of its dates, no TLS at all on the port). Pure, for the client and `doctor`.

/** NODE_USE_SYSTEM_CA=1 makes Node trust the operating system's store from 22.19, 24.6 and 25 on. */
export function hasSystemCaSwitch(nodeVersion: string): boolean {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number);
  return major >= 25 || (major === 24 && minor >= 6) || (major === 22 && minor >= 19);
}

/** The hint for a certificate that is not trusted, naming every way msgr can be told to trust it. */
export function trustHint(nodeVersion: string, profile?: string): string {
  const name = profile ?? 'NAME';
  const ways = [`--ca-file ROOT.pem for one run`, `\`msgr profile set ${name} ca-file ROOT.pem\` (or MSGR_CA_FILE=ROOT.pem) to keep it`];
  if (hasSystemCaSwitch(nodeVersion)) ways.push("NODE_USE_SYSTEM_CA=1 to trust the operating system's store where the root is installed");
  return `If the server uses a private CA, or this network inspects TLS (a corporate proxy or firewall presenting its own certificates), trust that root: ${ways.join('; ')}. Nothing was sent.`;
}

/**
 * A TLS failure by its Node/OpenSSL code: a chain that leads to no trusted root (`untrusted`),
 * a certificate for another host (`name`), one expired or not yet valid (`dates`), or a
 * handshake that failed before any certificate was checked (`handshake`).
 */
export type TlsFailure = 'untrusted' | 'name' | 'dates' | 'handshake';

/** A certificate or TLS failure, by its Node/OpenSSL code. */
export function isTlsCode(code: string): boolean {
  return /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/.test(code);
}

export function tlsFailureOf(code: string): TlsFailure {
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return 'name';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'dates';
  if (/CERT|SELF_SIGNED|UNABLE_TO/.test(code)) return 'untrusted';
  return 'handshake';
}

/** What a failure says after its code, in the client's errors. */
export const TLS_FAILURE_TEXT: Readonly<Record<TlsFailure, string>> = {
  untrusted: 'TLS certificate not trusted',
  name: 'the TLS certificate does not name the host',
  dates: 'the TLS certificate is expired or not yet valid',
  handshake: 'the TLS handshake failed',
};

/** What to do about a TLS failure; every hint ends with "Nothing was sent." as trustHint does. */
export function tlsHint(failure: TlsFailure, nodeVersion: string, profile?: string): string {
  switch (failure) {
    case 'untrusted':
      return trustHint(nodeVersion, profile);
    case 'name':
      return "Check the base URL's host; a TLS-inspecting proxy that presents the wrong name needs fixing by its administrators. Nothing was sent.";
    case 'dates':
      return "Check this machine's clock (NTP): a clock that is off makes a valid certificate look expired. If the clock is right, the server's certificate needs renewing by its administrators. Nothing was sent.";
    case 'handshake':
      return 'Something between this machine and the API breaks TLS; check the base URL and port (`https://` to a plain-http port fails this way). Nothing was sent.';
  }
}
