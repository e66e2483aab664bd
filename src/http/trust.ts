// What to say when a certificate is not trusted: the ways to trust a private or inspecting root
// (README: "Behind a proxy or a TLS-inspecting firewall"). Pure, for the client and `doctor`.

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
