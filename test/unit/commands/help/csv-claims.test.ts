// Every claim `msgr help csv` (docs/help/csv.md) makes, run as its reader would: a file of the
// kind the page names, through the whole command (main, in-process), with what the page says
// checked in what msgr does. A sentence of the page that stops being true fails its test here.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { main } from '../../../../src/main.js';
import { ROOT, tempDir } from '../../../support/cli.js';
import { fakeContext } from '../../../support/fake-context.js';

const PAGE = readFileSync(join(ROOT, 'docs', 'help', 'csv.md'), 'utf8').replace(/\s+/g, ' ');

interface Ran {
  readonly code: number;
  readonly doc: Record<string, unknown>;
  readonly stderr: string;
}

interface Recipient {
  readonly msisdn: string;
  readonly variables?: Record<string, string>;
  readonly metaData?: Record<string, string>;
}

const dir = tempDir('msgr-help-csv-');
const env = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'help-csv-key-0123456789', MSGR_BASE_URL: 'https://api.example.test', MSGR_ACCOUNT_REFERENCE: 'ACME', NO_COLOR: '1' };
let files = 0;

/** `msgr send-bulk FILE --from Acme --text Hi --dry-run --json ARGS` on a file of these bytes (ARGS' own `--text` instead, if they have one). */
async function dryRun(content: string | Buffer, args: string[] = [], name = 'list.csv'): Promise<Ran> {
  const file = join(dir, `${files++}-${name}`);
  writeFileSync(file, content);
  const text = args.includes('--text') ? [] : ['--text', 'Hi'];
  return run(['send-bulk', file, '--from', 'Acme', ...text, '--dry-run', '--json', ...args]);
}

async function run(argv: string[], input?: string): Promise<Ran> {
  const ctx = fakeContext({ env, ...(input !== undefined ? { input } : {}) });
  (ctx as { argv: readonly string[] }).argv = argv;
  const code = await main(ctx);
  return { code, doc: JSON.parse(ctx.out()) as Record<string, unknown>, stderr: ctx.err() };
}

const recipients = (r: Ran): Recipient[] => ((r.doc.firstRequest as { recipients?: Recipient[] } | null)?.recipients ?? []);
const numbers = (r: Ran): string[] => recipients(r).map((x) => x.msisdn);
const causes = (r: Ran): string[] => ((r.doc.causes ?? (r.doc.error as { causes?: unknown } | undefined)?.causes ?? []) as Array<{ cause: string }>).map((c) => c.cause);
/** What msgr said of a refusal: on stderr, and in the error document when the refusal is not the preflight's summary. */
const message = (r: Ran): string => `${r.stderr}${(r.doc.error as { message?: string } | undefined)?.message ?? ''}`;
const hint = (r: Ran): string => `${r.stderr}${(r.doc.error as { hint?: string } | undefined)?.hint ?? ''}`;

/** The page says this, in so many words (its lines joined). */
function says(words: string): void {
  assert.ok(PAGE.includes(words), `msgr help csv no longer says: ${words}`);
}

describe('msgr help csv: every claim holds', () => {
  test('a header row, one recipient per row; `-` reads stdin', async () => {
    says('reads a CSV file with a header row, one recipient per row (`-` reads stdin)');
    const piped = await run(['send-bulk', '-', '--from', 'Acme', '--text', 'Hi', '--dry-run', '--json'], 'Mobile\n+447911123456\n+447911123457\n');
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual(numbers(piped), ['+447911123456', '+447911123457']);
  });

  test('one invalid row stops the run, nothing sent (exit 2), unless --skip-invalid', async () => {
    says('one invalid row stops the run, nothing sent (exit 2), unless `--skip-invalid`');
    const csv = 'Mobile\n+447911123456\nnot a number\n';
    const stopped = await dryRun(csv);
    assert.equal(stopped.code, 2);
    assert.match(message(stopped), /1 invalid row; nothing was sent/);
    const skipped = await dryRun(csv, ['--skip-invalid']);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.deepEqual(numbers(skipped), ['+447911123456']);
  });

  test('the number column by its name, ignoring case, accents, spaces and punctuation', async () => {
    says('`Phone Number`, `phone_number` and `Mobile No.` are found');
    for (const name of ['Phone Number', 'phone_number', 'Mobile No.', 'MSISDN', 'Téléphone', 'gsm']) {
      const r = await dryRun(`Name,${name}\nAnn,+447911123456\n`);
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.equal((r.doc.numberColumn as { name: string }).name, name);
    }
  });

  test('of several, the one that says mobile is taken over Phone or Tel; otherwise the run stops, listing the flags', async () => {
    says('Of several, one that says mobile is taken over `Phone` or `Tel` (often a landline); otherwise the run stops and lists the `--msisdn-column` flags it accepts');
    const mobile = await dryRun('Phone,Mobile\n+441632960000,+447911123456\n');
    assert.deepEqual(numbers(mobile), ['+447911123456']);
    assert.deepEqual(mobile.doc.numberColumn, { name: 'Mobile', how: 'mobile', over: ['Phone'] });
    const neither = await dryRun('Phone,Tel\n+447911123456,+447911123457\n');
    assert.equal(neither.code, 2);
    assert.match(hint(neither), /--msisdn-column Phone/);
    assert.match(hint(neither), /--msisdn-column Tel/);
    says('Or name it: `--msisdn-column NAME`');
    assert.deepEqual(numbers(await dryRun('Phone,Tel\n+447911123456,+447911123457\n', ['--msisdn-column', 'Tel'])), ['+447911123457']);
  });

  test('--no-header: the first line is a recipient, the columns 1, 2, …, the number column 1', async () => {
    says('With `--no-header` the first line is a recipient and the columns are 1, 2, ... (the number is column 1; no other column is a variable unless `--var-columns` names it)');
    const r = await dryRun('+447911123456,Ann\n+447911123457,Bob\n', ['--no-header']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(recipients(r), [{ msisdn: '+447911123456' }, { msisdn: '+447911123457' }]);
    assert.deepEqual(recipients(await dryRun('+447911123456,Ann\n', ['--no-header', '--var-columns', '2'])), [{ msisdn: '+447911123456', variables: { 2: 'Ann' } }]);
  });

  test('E.164: 00 becomes +, spaces, dashes, dots and brackets go; a national number needs --default-country', async () => {
    says('Numbers are sent in E.164: `00` becomes `+`; spaces, dashes, dots, brackets go. A national number (`07911 123456`) needs `--default-country GB`.');
    const r = await dryRun('Mobile\n0044 7911 123456\n+44 (7911) 123-457\n+44.7911.123.458\n');
    assert.deepEqual(numbers(r), ['+447911123456', '+447911123457', '+447911123458']);
    const national = await dryRun('Mobile\n07911 123456\n');
    assert.equal(national.code, 2);
    assert.deepEqual(causes(national), ['national']);
    assert.deepEqual(numbers(await dryRun('Mobile\n07911 123456\n', ['--default-country', 'GB'])), ['+447911123456']);
  });

  test('a digit short or long, or a national 0 kept, is an invalid row; --allow-unlisted-numbers sends numbers in no range, never those', async () => {
    says('one digit short or long makes it an invalid row, and so does a national 0 kept after the country code, unless the number is valid without it (`+44 (0)7911 123456` is +447911123456). `--allow-unlisted-numbers` sends numbers in no range of the plan (ranges newer than the data), never a mistyped one.');
    assert.deepEqual(numbers(await dryRun('Mobile\n+44 (0)7911 123456\n')), ['+447911123456']);
    // A digit too many can be past the country's longest number: impossible rather than mistyped, invalid all the same.
    for (const [n, cause] of [['+44791112345', 'mistyped'], ['+4479111234567', 'impossible'], ['+44016329600', 'mistyped']] as const) {
      const r = await dryRun(`Mobile\n${n}\n`, ['--allow-unlisted-numbers']);
      assert.equal(r.code, 2, n);
      assert.deepEqual(causes(r), [cause], n);
    }
    says("The UK's drama numbers (`+44 7700 900xxx`) are in no range and stop a run without that flag (the US's `555-01xx` are in its plan, and are sent)");
    const drama = await dryRun('Mobile\n+44 7700 900123\n');
    assert.equal(drama.code, 2);
    assert.deepEqual(causes(drama), ['unlisted']);
    assert.equal((await dryRun('Mobile\n+44 7700 900123\n', ['--allow-unlisted-numbers'])).code, 0);
    assert.deepEqual(numbers(await dryRun('Mobile\n+1 201 555 0123\n')), ['+12015550123']);
    says('try msgr with a real-looking mobile such as `+447911123456`');
    assert.equal((await dryRun('Mobile\n+447911123456\n')).code, 0);
  });

  test('a number on several rows: the same message once; different messages stop the run until --allow-duplicates or --first-per-number', async () => {
    says('A number on several rows with the same message gets it once; with different messages the run stops until `--allow-duplicates` (each message) or `--first-per-number` (the first row\'s).');
    const same = await dryRun('Mobile,Name\n+447911123456,Ann\n+447911123456,Ann\n');
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.doc.toSend, 1);
    assert.equal(same.doc.duplicates, 1);
    const csv = 'Mobile,Name\n+447911123456,Ann\n+447911123456,Bob\n';
    const named = ['--text', 'Hi {{Name}}'];
    assert.equal((await dryRun(csv, named)).code, 2);
    assert.equal((await dryRun(csv, [...named, '--allow-duplicates'])).doc.toSend, 2);
    const first = await dryRun(csv, [...named, '--first-per-number', '--var-columns', 'Name']);
    assert.equal(first.doc.toSend, 1);
    assert.deepEqual(recipients(first)[0]?.variables, { Name: 'Ann' });
  });

  test('msgr fills the text in: no column goes unless --var-columns names it; a template gets every other column; --meta-columns sends metaData', async () => {
    says('When msgr fills the text in (`--text`, `--text-file`, `--text-column`), no column goes to the provider beside the number unless `--var-columns a,b` names it.');
    const csv = 'Mobile,Name,City,Ref\n+447911123456,Ann,Leeds,R1\n';
    assert.deepEqual(recipients(await dryRun(csv, ['--text', 'Hi {{Name}}'])), [{ msisdn: '+447911123456' }]);
    assert.deepEqual(recipients(await dryRun(csv, ['--var-columns', 'Name', '--meta-columns', 'Ref'])), [{ msisdn: '+447911123456', variables: { Name: 'Ann' }, metaData: { Ref: 'R1' } }]);
    says('With `--template` (or `--no-render`) every other column is sent as recipients[].variables, and `--var-columns a,b` narrows that. `--meta-columns x,y` sends columns as metaData.');
    assert.deepEqual(recipients(await dryRun(csv, ['--no-render'])), [{ msisdn: '+447911123456', variables: { Name: 'Ann', City: 'Leeds', Ref: 'R1' } }]);
    assert.deepEqual(recipients(await dryRun(csv, ['--no-render', '--var-columns', 'City'])), [{ msisdn: '+447911123456', variables: { City: 'Leeds' } }]);
  });

  test('encodings: UTF-8 with or without a BOM, UTF-16 with one; --encoding latin1, utf16le; not UTF-8 is an invalid row with the hint', async () => {
    says('UTF-8 with or without a BOM, and UTF-16 with a BOM, are read as they are. Without a BOM, `--encoding latin1` reads Windows-1252 (what Excel on Windows writes), `utf16le` and `utf16be` read UTF-16.');
    const text = 'Mobile,Name\n+447911123456,Zoë “Z”\n';
    const name = (r: Ran): string | undefined => recipients(r)[0]?.variables?.Name;
    const v = ['--var-columns', 'Name'];
    assert.equal(name(await dryRun(text, v)), 'Zoë “Z”');
    assert.equal(name(await dryRun(`\uFEFF${text}`, v)), 'Zoë “Z”');
    assert.equal(name(await dryRun(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), v)), 'Zoë “Z”');
    assert.equal(name(await dryRun(Buffer.from(text, 'utf16le'), ['--encoding', 'utf16le', ...v])), 'Zoë “Z”');
    const cp1252 = Buffer.from([...Buffer.from('Mobile,Name\n+447911123456,Zo'), 0xeb, 0x20, 0x93, 0x5a, 0x94, 0x0a]);
    assert.equal(name(await dryRun(cp1252, ['--encoding', 'latin1', ...v])), 'Zoë “Z”');
    says('Text that is not UTF-8, in a column the run uses, makes its row invalid, with that hint.');
    const wrong = await dryRun(cp1252, ['--text', 'Hi {{Name}}']);
    assert.equal(wrong.code, 2);
    assert.deepEqual(causes(wrong), ['utf8']);
    assert.match(hint(wrong), /--encoding latin1/);
    says('Excel for Mac\'s "CSV (Macintosh)" is not read: save the sheet as "CSV UTF-8".');
    const mac = await dryRun(Buffer.from([...Buffer.from('Mobile,Name\r+447911123456,Zo'), 0x8a, 0x0d]), ['--text', 'Hi {{Name}}']);
    assert.equal(mac.code, 2);
    assert.match(`${message(mac)} ${hint(mac)}`, /CSV UTF-8/);
  });

  test('the delimiter is found from the header line; --delimiter forces one; sep=; names it', async () => {
    says('The delimiter, `,` `;` or tab, is found from the header line; `--delimiter` forces one, and a first line `sep=;` names it.');
    const v = ['--var-columns', 'Name'];
    for (const d of [',', ';', '\t']) assert.deepEqual(recipients(await dryRun(`Mobile${d}Name\n+447911123456${d}Ann\n`, v)), [{ msisdn: '+447911123456', variables: { Name: 'Ann' } }], JSON.stringify(d));
    assert.deepEqual(recipients(await dryRun('sep=;\nMobile;Name\n+447911123456;Ann, Bob\n', v)), [{ msisdn: '+447911123456', variables: { Name: 'Ann, Bob' } }]);
    assert.deepEqual(recipients(await dryRun('Mobile|Name\n+447911123456|Ann\n', ['--delimiter', '|', ...v])), [{ msisdn: '+447911123456', variables: { Name: 'Ann' } }]);
  });

  test('values are never converted (007 stays 007); empty rows and rows of only delimiters are skipped', async () => {
    says('Values are never converted: `007` stays `007`. Empty rows, and rows of only delimiters, are skipped.');
    const r = await dryRun('Mobile,Code\n+447911123456,007\n\n,\n+447911123457,1.50\n', ['--var-columns', 'Code']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.doc.rows, 2);
    assert.deepEqual(recipients(r).map((x) => x.variables?.Code), ['007', '1.50']);
  });

  test('a number that lost its + or its 0: refused and named without a default country, the number it was with one; scientific notation always refused', async () => {
    says('loses its `+` (`447911123456`) or its leading 0 (`7911 123456`), or turns into scientific notation (`4.47911E+11`, the last digits already lost)');
    says('Scientific notation is always refused. Without a default country, a number that lost its `+` is refused, named with the `+` it would have.');
    const noPlus = await dryRun('Mobile\n447911123456\n');
    assert.equal(noPlus.code, 2);
    assert.deepEqual(causes(noPlus), ['no-plus']);
    assert.match(message(noPlus), /"447911123456" has no \+: it is \+447911123456 if international/);
    says("With one (`--default-country GB`, or a profile's), a number of that country that lost its `+` or its 0 is read as the number it was, as it can be no other");
    for (const lost of ['447911123456', '7911 123456']) {
      const gb = await dryRun(`Mobile\n${lost}\n`, ['--default-country', 'GB']);
      assert.equal(gb.code, 0, gb.stderr);
      assert.deepEqual(numbers(gb), ['+447911123456'], lost);
    }
    says('digits that could also be a number of the default country other than a mobile (`4915123456789` with `DE`) are refused, naming both');
    const de = await dryRun('Mobile\n4915123456789\n', ['--default-country', 'DE']);
    assert.equal(de.code, 2);
    assert.match(message(de), /it is \+4915123456789 if international, not the DE number \+494915123456789/);
    for (const country of [[], ['--default-country', 'GB']]) {
      const sci = await dryRun('Mobile\n4.47911E+11\n', country);
      assert.equal(sci.code, 2);
      assert.deepEqual(causes(sci), ['scientific']);
      assert.match(hint(sci), /format the number column as Text/);
    }
  });

  test('formulas exported as #NULL! or #NAME?, decimals (.0, ,00) and Excel workbooks are refused', async () => {
    says('`+44 7911 123456` typed into a cell is a formula to a spreadsheet, exported as `#NULL!` or `#NAME?`: type the numbers as text.');
    const formula = await dryRun('Mobile\n#NULL!\n#NAME?\n');
    assert.deepEqual(causes(formula), ['formula']);
    assert.equal((formula.doc.error as { causes?: unknown } | undefined) === undefined ? (formula.doc.causes as Array<{ count: number }>)[0]?.count : 0, 2);
    says('A number ending in `.0` or `,00` was written as a decimal: refused.');
    assert.deepEqual(causes(await dryRun('Mobile;Name\n447911123456.0;A\n447911123457,00;B\n')), ['decimal']);
    says('An Excel workbook (`.xlsx`, `.xls`) is refused, whatever its name.');
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60, 1)]);
    for (const name of ['book.xlsx', 'book.csv']) {
      const r = await dryRun(zip, [], name);
      assert.equal(r.code, 2, name);
      assert.match(`${message(r)} ${hint(r)}`, /Excel|workbook/i, name);
    }
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(60, 1)]);
    assert.equal((await dryRun(ole, [], 'book.xls')).code, 2);
  });

  test('--exclude: a list one per line, or a CSV with a number column; an entry that cannot be read stops the run, naming its line', async () => {
    says('`--exclude optouts.txt` leaves out the numbers of a one-off list as well: one per line, or a CSV with a number column (`--exclude-column NAME`). Every entry must read as a number');
    const csv = 'Mobile\n+447911123456\n+447911123457\n';
    const plain = join(dir, 'optouts.txt');
    writeFileSync(plain, '+447911123456\n');
    const r = await dryRun(csv, ['--exclude', plain]);
    assert.deepEqual([r.doc.excluded, numbers(r)], [1, ['+447911123457']]);
    const list = join(dir, 'optouts.csv');
    writeFileSync(list, 'Name,Number\nAnn,+447911123457\n');
    assert.deepEqual(numbers(await dryRun(csv, ['--exclude', list, '--exclude-column', 'Number'])), ['+447911123456']);
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, '+447911123456\nnot a number\n');
    const stopped = await dryRun(csv, ['--exclude', bad]);
    assert.equal(stopped.code, 2);
    assert.match(message(stopped), /line 2/);
  });

  test('the repeated header of two exports joined, and two numbers in one cell, are said as such', async () => {
    const r = await dryRun('Name,Mobile\nAnn,+447911123456\nName,Mobile\nBob,07911 123457 / 07400 123458\n', ['--default-country', 'GB']);
    assert.equal(r.code, 2);
    assert.deepEqual(causes(r).sort(), ['header', 'two-numbers']);
  });
});
