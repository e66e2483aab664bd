// `msgr doctor`: resolve the settings as `send` does, run the checks (doctor/checks.ts), print
// one line per step (or one JSON document), exit 0, 2 or 5.
import type { Context } from '../../context.js';
import { NotSentError, UsageError } from '../../errors.js';
import { runDoctor, type DoctorReport, type Step } from '../../doctor/checks.js';
import { maskUrl, showControls } from '../../output/sanitize.js';
import { createUi, type Ui } from '../../output/ui.js';
import { lineWidth, wrap } from '../../output/wrap.js';
import { resolveSettings } from '../../settings/resolve.js';
import type { DoctorOptions } from './options.js';
import { userAgent } from '../../http/endpoint.js';

export async function runDoctorCommand(ctx: Context, opts: DoctorOptions): Promise<void> {
  const ui = createUi(ctx, { quiet: opts.quiet, verbose: opts.verbose });
  const sandbox = opts.sandbox === true;
  const settings = await resolveSettings(
    ctx,
    { profile: opts.profile, baseUrl: opts.baseUrl, account: opts.account, apiKeyFile: opts.apiKeyFile, apiKeyStdin: opts.apiKeyStdin, caFile: opts.caFile },
    { profileOptional: sandbox, warn: (line) => ui.warn(line) },
  );
  let sandboxUrl: string | undefined;
  if (sandbox) {
    const { startSandbox } = await import('../../sandbox/server.js');
    const server = await startSandbox({ port: 0, apiKey: settings.apiKey.value ?? 'sandbox-key' });
    ctx.onExit(() => server.close());
    sandboxUrl = server.url;
  }
  const report = await runDoctor(ctx, { settings, ...(sandboxUrl !== undefined ? { sandboxUrl } : {}), timeoutMs: opts.timeout, userAgent: `${userAgent(ctx)} (doctor)` });
  // Every step has every field (docs/network.md: "msgr doctor"): null where a step has no hint, exit code or data.
  const steps = report.steps.map((s) => ({ id: s.id, title: s.title, status: s.status, detail: s.detail, hint: s.hint ?? null, exitCode: s.exitCode ?? null, data: s.data ?? null }));
  const doc = { ok: report.exitCode === 0, exitCode: report.exitCode, baseUrl: report.baseUrl, sandbox, steps };
  if (opts.json !== true) render(ctx, ui, report, sandbox);
  if (report.exitCode === 0) {
    if (opts.json === true) ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  const failed = report.steps.filter((s) => s.status === 'fail');
  const message = `doctor: ${failed.map((s) => s.title).join(', ')} failed`;
  const hint = failed.length === 1 && failed[0]?.hint !== undefined ? failed[0].hint : undefined;
  // Under --json the error's document is the whole report (one document on stdout).
  const details = { jsonFor: (exitCode: number) => ({ ...doc, exitCode }), ...(hint !== undefined && opts.json === true ? { hint } : {}) };
  throw report.exitCode === 2 ? new UsageError(message, details) : new NotSentError(message, details);
}

const MARKS: Record<Step['status'], [plain: string, fancy: string]> = {
  pass: ['ok', '✔'],
  warn: ['warn', '!'],
  fail: ['FAIL', '✖'],
  skip: ['skip', '-'],
  info: ['info', 'i'],
};

function render(ctx: Context, ui: Ui, report: DoctorReport, sandbox: boolean): void {
  const c = ui.color;
  const fancy = c.level > 0;
  const paint = (s: Step['status'], text: string): string => (s === 'pass' ? c.green(text) : s === 'fail' ? c.red(text) : s === 'warn' ? c.yellow(text) : c.dim(text));
  // On a terminal, a step's words wrap under its detail's column (output/wrap.ts).
  const columns = lineWidth(ctx.stdout);
  const out = (line: string, lead?: string): void => void ctx.stdout.write(`${wrap(line, columns, lead !== undefined ? { lead } : {})}\n`);
  out(`msgr doctor: the way from this machine to ${report.baseUrl !== null && report.baseUrl !== undefined ? maskUrl(report.baseUrl) : '(no base URL)'}${sandbox ? ' (the built-in sandbox)' : ''}; nothing is sent`);
  const width = Math.max(...report.steps.map((s) => s.title.length));
  for (const step of report.steps) {
    const mark = MARKS[step.status][fancy ? 1 : 0];
    const [first = '', ...rest] = showControls(step.detail).split('\n');
    const lead = `  ${' '.repeat(fancy ? 1 : 4)}  ${' '.repeat(width)}  `;
    out(`  ${paint(step.status, mark.padEnd(fancy ? 1 : 4))}  ${step.title.padEnd(width)}  ${first}`, lead);
    for (const line of rest) out(`${lead}${line}`, lead);
    if (step.hint !== undefined && (step.status === 'fail' || step.status === 'warn')) out(`${lead}${c.dim('→')} ${showControls(step.hint)}`, `${lead}  `);
  }
  const failed = report.steps.filter((s) => s.status === 'fail').length;
  out(failed === 0 ? (report.steps.some((s) => s.status === 'warn') ? 'every step passed (see the warnings above)' : 'every step passed') : `${failed} step${failed === 1 ? '' : 's'} failed: exit ${report.exitCode}`);
}
