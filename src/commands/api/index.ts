// `msgr api [method] <path>`: an authenticated raw request under the profile's base URL.
// Commander only; the work loads when the command runs.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { addConnectionOptions, collect } from '../shared/flags.js';
import type { ApiOptions } from './options.js';

/** `runF` replaces the run (tests: argv → options); by default the options go to run.ts. */
export function registerApi(program: Command, ctx: Context, runF?: (opts: ApiOptions) => Promise<void>): void {
  const cmd = program
    .command('api')
    .usage('[method] <path> [options]')
    .description('send an authenticated request to any API path (endpoints and fields msgr does not model yet)')
    .argument('<method-or-path>', 'GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS; or the path when the method is left out')
    .argument('[path]', 'a path under the base URL, starting with /, such as /v2/messages (a ?query is kept)')
    .option('--input <file>', "the request body, sent as is ('-' for stdin)")
    .option('-f, --field <key=value>', 'a body field (repeatable): key=text, key:=JSON, nested as a.b, appended as a[]; a query parameter for GET', collect)
    .option('-H, --header <name: value>', 'an extra request header (repeatable); X-Api-Key is never taken from here', collect);
  addConnectionOptions(cmd);
  cmd.addHelpText(
    'after',
    `
The method is POST when there is a body (--input or --field), else GET. {account} in the path or
in a field value is replaced with the resolved account (--account, MSGR_ACCOUNT_REFERENCE or the
profile). Key, TLS, proxies, timeout, retries (only what provably did not happen), output and
exit codes are those of msgr send; the key is never printed, --verbose included. Nothing checks
the body: this is the way to send fields the spec does not show yet, such as RCS rich content.

Examples:
  msgr api /v2/messages --input request.json
  msgr api POST /v2/messages -f accountReference={account} -f channel=RCS -f from=acme_agent \\
      -f body.text=Hi -f 'recipients:=[{"msisdn": "+447911123456"}]' -f 'body.rcs:={"card": {"title": "Hi"}}'
  msgr api GET '/v2/messages?limit=10' --json | jq .
  echo '{"accountReference": "ACME"}' | msgr api PATCH /v2/settings --input - -H 'If-Match: "7"'`,
  );
  cmd.action(async (first: string, second: string | undefined, _opts: unknown, command: Command) => {
    const { parseApiOptions } = await import('./options.js');
    const opts = parseApiOptions(first, second, command.opts());
    if (runF !== undefined) return runF(opts);
    const { runApi } = await import('./run.js');
    await runApi(ctx, opts);
  });
}
