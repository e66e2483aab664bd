// msgr on a real terminal: util-linux `script` gives it a pseudo-TTY (stdin, stdout and stderr
// alike, so the output is both streams as a person sees them). Answers are typed only once the
// question is on the screen, as a person would.
import { spawn, spawnSync } from 'node:child_process';
import { MSGR, ROOT } from './cli.js';

export const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

export interface TtyResult {
  code: number | null;
  output: string;
}

/** Runs msgr on a pseudo-terminal; each [prompt, answer] pair is typed when prompt appears. */
export function runTty(args: string[], env: Record<string, string>, answers: Array<[RegExp, string]> = [], options: { columns?: number } = {}): Promise<TtyResult> {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  // exec: msgr must be the terminal's foreground process, not a child of the shell `script` starts.
  // A shell that does not exec a lone command (dash, /bin/sh where SHELL is unset) dies of the
  // Ctrl-C itself, and `script` reports 130 whatever msgr exits with.
  const exec = `exec ${[...MSGR, ...args].map(quote).join(' ')}`;
  // The terminal's width, as `stty` sets it on the pseudo-TTY (script's own is 80 by default).
  const command = options.columns !== undefined ? `stty cols ${options.columns}; ${exec}` : exec;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    const pending = [...answers];
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      const next = pending[0];
      if (next !== undefined && next[0].test(output)) {
        pending.shift();
        child.stdin.write(next[1]);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
