// `msgr help [topic | command [sub]]`. Commander only; replaces Commander's own help command so
// that topics (help/topics.ts, and the docs pages of docs/help/) sit beside the commands.
import type { Command } from 'commander';
import type { Context } from '../../context.js';

export function registerHelp(program: Command, ctx: Context): void {
  program.helpCommand(false);
  program
    .command('help')
    .description('help on a command (msgr help profile add) or a topic (msgr help csv); msgr help lists the topics')
    .argument('[topic...]', 'a topic, or a command and its subcommand')
    .action(async (topic: string[]) => {
      const { runHelp } = await import('./run.js');
      runHelp(ctx, program, topic);
    });
}
