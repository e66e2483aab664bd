// The help topics written as docs pages (docs/help/<topic>.md) become `msgr help <topic>`: the
// build renders each for the terminal and defines them into the bundle (__MSGR_HELP_TOPICS__),
// so the page and the help are one text. test/unit/commands/help/topics-from-the-docs-pages.test.ts checks
// both agree, word for word, and fit the terminal.
//
// A page is Markdown kept plain enough to read as it is: a `# Title` (the topic's one-line
// summary in `msgr help`), paragraphs and lists wrapped at 80 columns, `## Headings`, fenced code
// blocks. For the terminal, headings lose their `#` (a `##` heading ends with a colon, as --help's
// do), code blocks are indented by two spaces, and backticks, emphasis and link targets go;
// paragraphs are filled again for the terminal's width when shown.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const HELP_TOPICS_DIR = join('docs', 'help');

/**
 * A page's Markdown as the terminal shows it, before it is fitted to the terminal's width when
 * shown (src/output/wrap.ts, wrapPage): a paragraph, and each list item, on one line; code blocks
 * indented by two spaces, as written.
 */
export function renderTopic(markdown) {
  const out = [];
  let inCode = false;
  // The paragraph or list item being read, whose lines go on one line.
  let text;
  const close = () => {
    if (text !== undefined) out.push(inline(text));
    text = undefined;
  };
  for (const line of markdown.replace(/<!--[\s\S]*?-->\n?/g, '').split('\n')) {
    if (/^```/.test(line)) {
      close();
      inCode = !inCode;
      continue;
    }
    if (inCode) {
      out.push(line === '' ? '' : `  ${line}`);
      continue;
    }
    const heading = /^(#+)\s+(.*)$/.exec(line);
    if (heading !== null || line.trim() === '' || /^[-*] /.test(line)) close();
    if (heading !== null) out.push(heading[1].length === 1 ? inline(heading[2]) : `${inline(heading[2])}:`);
    else if (line.trim() === '') out.push('');
    else text = text === undefined ? line.trim() : `${text} ${line.trim()}`;
  }
  close();
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

/** Markdown's inline marks gone: a code span is shown as written (`\\{{` keeps its backslash). */
function inline(text) {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.slice(1, -1)
        : part
            .replace(/\[([^\]]+)\]\(([^)]+)\)/g, (_m, label, target) => (/^https?:/.test(target) ? `${label} (${target})` : label))
            .replace(/\*\*([^*]+)\*\*/g, '$1')
            .replace(/\\([\\`*_{}[\]()#+\-.!<>|])/g, '$1'),
    )
    .join('');
}

/** Every topic page: name (the file's), summary (its title) and the rendered text, by name. */
export function readHelpTopics(root = '.') {
  const dir = join(root, HELP_TOPICS_DIR);
  const topics = {};
  let names = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.md') && n !== 'README.md').sort();
  } catch {
    return topics;
  }
  for (const file of names) {
    const markdown = readFileSync(join(dir, file), 'utf8');
    const title = /^# (.+)$/m.exec(markdown);
    if (title === null) throw new Error(`${join(dir, file)}: a help topic page starts with a "# Title" line (its summary in msgr help)`);
    topics[file.slice(0, -3)] = { summary: inline(title[1]), text: renderTopic(markdown) };
  }
  return topics;
}
