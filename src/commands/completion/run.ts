// `msgr completion <shell>` and the `msgr __complete` answers its script asks for.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { bashWords, complete, formatCompletion, SHELLS, type Completion, type Shell } from './complete.js';
import { completionScript } from './scripts.js';
import { getCountries } from 'libphonenumber-js/max';
import { loadStore, profileNames as namesOf } from '../../profiles/profile-file.js';

function checkShell(shell: string): Shell {
  if ((SHELLS as readonly string[]).includes(shell)) return shell as Shell;
  throw new UsageError(`"${shell}" is not a shell msgr completes`, { hint: `Use one of ${SHELLS.join(', ')}.` });
}

export function runCompletion(ctx: Context, shell: string): void {
  ctx.stdout.write(completionScript(checkShell(shell)));
}

export function runComplete(ctx: Context, program: Command, shellName: string, raw: readonly string[]): void {
  const shell = checkShell(shellName);
  let words = [...raw];
  if (words.length === 0) words = [''];
  if (shell === 'powershell') {
    const last = words.at(-1) ?? '';
    words[words.length - 1] = last.startsWith('cur=') ? last.slice(4) : last;
  }
  let valueOnly = false;
  if (shell === 'bash') ({ words, valueOnly } = bashWords(words));
  let result: Completion = complete(program, words, {
    profileNames: () => profileNames(ctx),
    countries,
  });
  if (valueOnly && result.kind === 'values') {
    result = { kind: 'values', candidates: result.candidates.map((c) => ({ ...c, value: c.value.slice(c.value.indexOf('=') + 1) })) };
  }
  ctx.stdout.write(formatCompletion(shell, result));
}

/** Profile names from the store, read at each TAB; nothing when the store cannot be read. */
function profileNames(ctx: Context): string[] {
  try {
    return namesOf(loadStore(ctx, () => {}).data);
  } catch {
    return [];
  }
}

function countries(): string[] {
  return [...getCountries()].sort();
}
