// Commands msgr prints for people to run (a resume, a fix): arguments quoted for a POSIX shell,
// so that a command copied from a hint runs as printed.

/** `it's` → `'it'\''s'`; plain words as they are. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

export interface CommandEdit {
  /** An option whose value is replaced (`--base-url X` or `--base-url=X`), or added when absent. */
  readonly set?: readonly [option: string, value: string];
  /** An option added when absent (`--restart`). */
  readonly add?: string;
}

/**
 * `msgr` and this command's arguments, each quoted, edited: an option's value set, an option
 * added, either before a `--` that ends the options.
 */
export function msgrCommand(argv: readonly string[], edit: CommandEdit = {}): string {
  const out: string[] = ['msgr'];
  const [option, value] = edit.set ?? [];
  let seen = false;
  let ended = false;
  const finish = (): void => {
    if (option !== undefined && value !== undefined && !seen) out.push(option, shellQuote(value));
    if (edit.add !== undefined && !argv.includes(edit.add)) out.push(edit.add);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!ended && a === '--') {
      finish();
      ended = true;
    } else if (!ended && option !== undefined && value !== undefined && a === option) {
      out.push(option, shellQuote(value));
      seen = true;
      i++;
      continue;
    } else if (!ended && option !== undefined && value !== undefined && a.startsWith(`${option}=`)) {
      out.push(shellQuote(`${option}=${value}`));
      seen = true;
      continue;
    }
    out.push(shellQuote(a));
  }
  if (!ended) finish();
  return out.join(' ');
}
