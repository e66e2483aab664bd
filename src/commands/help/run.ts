// `msgr help`: a topic's text, or the help of the command named, on stdout.
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { storePaths } from '../../profiles/paths.js';
import { allTopics, DOC_TOPICS } from '../../help-topics.js';
import { configTopic, environmentTopic, exitCodesTopic } from './topics.js';
import { pageWidth, wrap, wrapPage } from '../../output/wrap.js';
import { stateDir } from '../../files/state-dir.js';

export function runHelp(ctx: Context, program: Command, words: readonly string[]): void {
  const [first] = words;
  if (first === undefined) {
    program.outputHelp();
    const topics = allTopics();
    const width = Math.max(...topics.map(([name]) => name.length)) + 2;
    // The summary is prose, wrapped in its own column: the line starts with a command, and
    // wrapping it whole would break the summary as one, with ` \` (output/wrap.ts).
    // On a terminal too narrow for two columns, the summary goes under its topic, as an option's does.
    const page = pageWidth(ctx.stdout);
    const column = page - ('  msgr help '.length + width) >= 30 ? '  msgr help '.length + width : 6;
    const lines = topics.map(([name, summary]) => {
      const summaryLines = wrap(summary, page - column, { hang: 0 }).split('\n').map((l) => `${' '.repeat(column)}${l}`);
      if (column === 6) return [`  msgr help ${name}`, ...summaryLines].join('\n');
      const [first = '', ...rest] = summaryLines;
      return [`  msgr help ${name.padEnd(width)}${first.trimStart()}`, ...rest].join('\n');
    });
    ctx.stdout.write(`\nHelp topics:\n${lines.join('\n')}\n`);
    return;
  }
  if (words.length === 1) {
    const topic = topicText(ctx, first);
    if (topic !== undefined) {
      ctx.stdout.write(topic);
      return;
    }
  }
  let cmd = program;
  for (const word of words) {
    const sub = cmd.commands.find((c) => (c.name() === word || c.aliases().includes(word)) && !(c as unknown as { _hidden?: boolean })._hidden);
    if (sub === undefined) {
      const shown = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help');
      const known = [...shown.map((c) => c.name()), ...(cmd === program ? allTopics().map(([name]) => name) : [])];
      const where = cmd === program ? 'a command or a help topic' : `a subcommand of ${cmd.name()}`;
      throw new UsageError(`"${word}" is not ${where}`, { hint: `Try one of: ${known.join(', ')}.` });
    }
    cmd = sub;
  }
  cmd.outputHelp();
}

function topicText(ctx: Context, name: string): string | undefined {
  const width = pageWidth(ctx.stdout);
  switch (name) {
    case 'exit-codes':
      return exitCodesTopic(width);
    case 'environment':
    case 'env':
      return environmentTopic(width);
    case 'config': {
      const override = ctx.env.MSGR_CONFIG_DIR;
      return configTopic({
        profileFile: storePaths(ctx.env, ctx.cwd).file,
        stateDir: stateDir(ctx.env, ctx.cwd),
        override: override !== undefined && override !== '' ? override : undefined,
      }, width);
    }
    default:
      return Object.hasOwn(DOC_TOPICS, name) ? wrapPage(DOC_TOPICS[name]?.text ?? '', width) : undefined;
  }
}
