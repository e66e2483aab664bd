// The HTTP clients of a bulk run, built one way from where it sends and the settings: the
// campaign's (many connections, more 429 retries, answers read for message ids) and a sample's
// (one connection). The client module (undici) is loaded while the preflight runs and handed in.
import type { ClientFactory, Context } from '../../context.js';
import { caFileSource, readCaFile } from '../../http/ca-file.js';
import type { ClientOptions, MessagesClient } from '../../http/client.js';
import { userAgent } from '../../http/endpoint.js';
import { redact } from '../../output/sanitize.js';
import { describeSource, type Settings } from '../../settings/resolve.js';
import type { Target } from '../../settings/target.js';

export type ClientExtras = Pick<ClientOptions, 'connections' | 'maxAttempts' | 'readSuccessBody' | 'onRetry'>;

/**
 * Checks the CA file now (a bad --ca-file stops the run before its journal is written) and
 * returns what builds each client; every client is closed when msgr exits.
 */
export function clientMaker(
  create: ClientFactory,
  ctx: Pick<Context, 'env' | 'onExit' | 'version' | 'nodeVersion'>,
  c: { target: Target; settings: Pick<Settings, 'caFile' | 'profile' | 'baseUrl'>; timeoutMs: number; debug: ((line: string) => void) | undefined },
): (extra: ClientExtras) => MessagesClient {
  const caFile = c.settings.caFile.value;
  const source = caFileSource(c.settings.caFile);
  if (caFile !== undefined) readCaFile(caFile, source);
  const { endpoint, apiKey, direct } = c.target;
  const debug = c.debug;
  return (extra) => {
    const client = create({
      endpoint,
      apiKey,
      userAgent: userAgent(ctx),
      timeoutMs: c.timeoutMs,
      caFile,
      caFileSource: source,
      nodeVersion: ctx.nodeVersion,
      profile: c.settings.profile.value,
      baseUrlSource: describeSource(c.settings.baseUrl),
      env: ctx.env,
      direct,
      ...(debug !== undefined ? { debug: (line: string) => debug(redact(line, apiKey)) } : {}),
      ...extra,
    });
    ctx.onExit(() => client.close());
    return client;
  };
}
