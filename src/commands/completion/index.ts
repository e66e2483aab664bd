// `msgr completion <shell>` prints a completion script; the hidden `msgr __complete` answers it.
// Commander only; the work loads when the command runs.
import { Argument, type Command } from 'commander';
import type { Context } from '../../context.js';

const SHELLS = ['bash', 'zsh', 'fish', 'powershell'];

export function registerCompletion(program: Command, ctx: Context): void {
  program
    .command('completion')
    .description('print a shell completion script: bash, zsh, fish or powershell')
    .addArgument(new Argument('<shell>', 'bash, zsh, fish or powershell').choices(SHELLS))
    .addHelpText('after', () => {
      // The install lines live with the scripts; this text is small enough to keep eager.
      return INSTALL_LINES;
    })
    .action(async (shell: string) => {
      const { runCompletion } = await import('./run.js');
      runCompletion(ctx, shell);
    });
  // Called by the scripts at each TAB: `msgr __complete <shell> -- <words after msgr>`.
  program
    .command('__complete', { hidden: true })
    .argument('<shell>')
    .argument('[words...]')
    .helpOption(false)
    .allowUnknownOption()
    .action(async (shell: string, words: string[] | undefined) => {
      const { runComplete } = await import('./run.js');
      runComplete(ctx, program, shell, words ?? []);
    });
}

const INSTALL_LINES = `
Each script asks msgr for candidates at every TAB (commands, options, values such as --channel
and --encoding, and your profile names), so it follows upgrades and profile changes by itself.

Install:
  # bash
  echo 'source <(msgr completion bash)' >> ~/.bashrc
  # zsh, after compinit
  echo 'source <(msgr completion zsh)' >> ~/.zshrc
  # fish
  msgr completion fish > ~/.config/fish/completions/msgr.fish
  # PowerShell
  msgr completion powershell >> $PROFILE

Or: bash also loads \`msgr completion bash > ~/.local/share/bash-completion/completions/msgr\`,
zsh a file in its $fpath (\`msgr completion zsh > "\${fpath[1]}/_msgr"\`), and PowerShell takes
\`msgr completion powershell | Out-String | Invoke-Expression\` for this session. Open a new shell
afterwards.`;
