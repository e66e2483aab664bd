// Which column is the number, which become variables and metaData, and each row's recipient JSON.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asciiJson, planColumns, recipientJson } from '../../../../src/bulk/input/columns.js';
import { chooseNumberColumn, headerKey, numberColumnKind } from '../../../../src/csv/header.js';
import { UsageError } from '../../../../src/errors.js';
import { requestFrame } from '../../../../src/bulk/compose/base-request.js';

describe('columns', () => {
  test('finds the number column by name, case-insensitively; the rest become variables', () => {
    const plan = planColumns(['Name', ' Phone ', 'code'], {}, 'f.csv');
    assert.equal(plan.msisdnName, 'Phone');
    assert.deepEqual(plan.vars, [0, 2]);
    assert.equal(recipientJson(plan, '+447400900001', ['A "q"', '07400 900001', '007']), '{"msisdn":"+447400900001","variables":{"Name":"A \\"q\\"","code":"007"}}');
  });

  test('--var-columns narrows, --meta-columns become metaData and leave the variables', () => {
    const plan = planColumns(['to', 'name', 'code', 'campaign'], { metaColumns: ['campaign'] }, 'f.csv');
    assert.deepEqual(plan.vars, [1, 2]);
    const json = JSON.parse(recipientJson(plan, '+447400900001', ['x', 'Ann', '1', 'spring'])) as unknown;
    assert.deepEqual(json, { msisdn: '+447400900001', variables: { name: 'Ann', code: '1' }, metaData: { campaign: 'spring' } });
    const narrow = planColumns(['to', 'name', 'code'], { varColumns: ['NAME'] }, 'f.csv');
    assert.deepEqual(narrow.vars, [1]);
    const none = planColumns(['to', 'name'], { varColumns: [] }, 'f.csv');
    assert.equal(recipientJson(none, '+447400900001', ['x', 'Ann']), '{"msisdn":"+447400900001"}');
  });

  test('a missing column is a usage error that lists the header', () => {
    assert.throws(() => planColumns(['a', 'b'], {}, 'f.csv'), (err: unknown) => err instanceof UsageError && /no number column/.test(err.message) && /"a", "b"/.test(err.hint ?? ''));
    // Numbers under a header cell left empty: --msisdn-column cannot name it, so the hint says what can.
    assert.throws(
      () => planColumns(['Name', ''], {}, 'f.csv'),
      (err: unknown) => err instanceof UsageError && err.hint === 'Name the column with --msisdn-column. The header has: "Name" (and 1 column with no name); a column with no name cannot be chosen: give the number column a name in the header (phone, say).',
    );
    assert.throws(() => planColumns(['msisdn', 'b'], { varColumns: ['c'] }, 'f.csv'), /--var-columns: f.csv has no column "c"/);
    // A typo of a header name gets the nearest one, in every column flag.
    assert.throws(() => planColumns(['Mobile', 'First name', 'campaign'], { msisdnColumn: 'Mobil' }, 'f.csv'), /--msisdn-column: f.csv has no column "Mobil"; did you mean "Mobile"\?/);
    assert.throws(() => planColumns(['msisdn', 'First name', 'campaign'], { varColumns: ['first nme'] }, 'f.csv'), /--var-columns: f.csv has no column "first nme"; did you mean "First name"\?/);
    assert.throws(() => planColumns(['msisdn', 'First name', 'campaign'], { metaColumns: ['campain'] }, 'f.csv'), /--meta-columns: f.csv has no column "campain"; did you mean "campaign"\?/);
  });
});

describe('the number column under spreadsheet names', () => {
  test('case, spaces and punctuation are ignored', () => {
    assert.equal(headerKey(' Mobile No. '), 'mobileno');
    assert.equal(headerKey('\uFEFFPhone_Number'), 'phonenumber');
    for (const [header, want, how] of [
      [['Name', 'Phone Number'], 1, 'only'],
      [['name', 'MOBILE NO.'], 1, 'only'],
      [['Cell', 'x'], 0, 'only'],
      [['tel.', 'name'], 0, 'only'],
      [['Mobile-Phone-Number'], 0, 'only'],
      [['PhoneNumber', 'Order number'], 0, 'only'],
      [['Name', 'Phone', 'Mobile'], 2, 'mobile'],
      [['First name', 'Phone', 'Mobile'], 2, 'mobile'],
      [['Téléphone', 'Téléphone portable'], 1, 'mobile'],
      [['Telefon', 'Handynummer'], 1, 'mobile'],
      [['Tel. fixe', 'NATEL'], 1, 'mobile'],
      [['Teléfono', 'Móvil'], 1, 'mobile'],
      [['Telefone', 'Celular'], 1, 'mobile'],
      [['Telefono', 'Cellulare'], 1, 'mobile'],
      [['Home Phone', 'Work phone', 'GSM'], 2, 'mobile'],
      [['e-mail', 'name'], -1, 'only'],
      [['Phone type', 'Phone verified', 'Account number'], -1, 'only'],
    ] as const) {
      const r = chooseNumberColumn(header, 'in.csv', '--msisdn-column');
      assert.deepEqual([r.index, r.choice.how], [want, how], JSON.stringify(header));
    }
    assert.deepEqual(chooseNumberColumn(['First name', 'Phone', 'Mobile'], 'in.csv', '--msisdn-column').choice.over, ['Phone']);
    assert.equal(planColumns(['First name', 'Mobile No.'], {}, 'in.csv').msisdnName, 'Mobile No.');
    assert.equal(planColumns(['Téléphone', 'Name'], {}, 'in.csv').msisdnName, 'Téléphone', 'an accented name is recognised');
    for (const name of ['Mobile', 'Cell', 'Handy', 'Portable', 'Móvil', 'Celular', 'Cellulare', 'Mobil', 'GSM', 'Natel', 'mobile_phone', 'CellPhone', 'Cell-phone number']) {
      assert.equal(numberColumnKind(name), 'mobile', name);
    }
    for (const name of ['Phone', 'Tel', 'TELEPHONE', 'Téléphone', 'Telefon', 'Phone 2', 'Home phone', 'Number']) assert.equal(numberColumnKind(name), 'phone', name);
  });

  test('several columns that could hold the numbers, none settled by a mobile name: no guess', () => {
    for (const header of [['Telephone', 'Tel'], ['Name', 'Phone', 'Phone 2'], ['Mobile', 'Cell', 'Phone']]) {
      assert.throws(
        () => planColumns(header, {}, 'in.csv'),
        (err: unknown) => err instanceof UsageError && /could hold the numbers/.test(err.message) && header.filter((h) => numberColumnKind(h) !== undefined).every((h) => (err.hint ?? '').includes(`--msisdn-column ${/\s/.test(h) ? `'${h}'` : h}`)),
        JSON.stringify(header),
      );
    }
    assert.equal(planColumns(['Telephone', 'Tel'], { msisdnColumn: 'Tel' }, 'in.csv').numberColumn.how, 'flag', 'a named column settles it');
  });

  test('a header that is a number points to --no-header', () => {
    assert.throws(() => planColumns(['+447911123456', 'Ann'], {}, 'in.csv'), (err: unknown) => err instanceof UsageError && /--no-header/.test(err.hint ?? ''));
    assert.throws(() => planColumns(['email', 'name'], {}, 'in.csv'), (err: unknown) => err instanceof UsageError && !/--no-header/.test(err.hint ?? '') && /--msisdn-column/.test(err.hint ?? ''));
    // A header read as one column with another delimiter in it: the delimiter is what to change.
    const oneColumn = /Its header is one column, "Mobile,Name": the file is read with ";" between columns .*give --delimiter ','/;
    assert.throws(() => planColumns(['Mobile,Name'], {}, 'in.csv', ';'), (err: unknown) => err instanceof UsageError && oneColumn.test(err.hint ?? ''));
    assert.throws(() => planColumns(['Mobile,Name'], { msisdnColumn: 'Mobile' }, 'in.csv', ';'), (err: unknown) => err instanceof UsageError && oneColumn.test(err.hint ?? ''));
    assert.throws(() => planColumns(['Mobile\tName'], {}, 'in.csv', ','), (err: unknown) => err instanceof UsageError && /give --delimiter tab/.test(err.hint ?? ''));
    // Said as it is: from --delimiter, from a sep= line, or the default of a header without ";" or tab.
    const from = (source: 'flag' | 'sep' | 'detected'): string => {
      try {
        planColumns(['Mobile|Name'], {}, 'in.csv', ',', source);
      } catch (err) {
        return (err as UsageError).hint ?? '';
      }
      return '';
    };
    assert.match(from('flag'), /read with "," between columns \(as --delimiter says\)\. If "\|" separates them, give --delimiter '\|'/);
    assert.match(from('sep'), /\(as its first line "sep=," says\)/);
    assert.match(from('detected'), /\(the default, as its header line has no ";" or tab outside quotes\)/);
    assert.doesNotMatch(from('detected'), /--delimiter says|sep=/);
  });

  test('two columns of one name (case ignored): the file is named, not a flag that was not given; a flag naming one says which columns', () => {
    const twice = (options: Parameters<typeof planColumns>[1]): UsageError => {
      try {
        planColumns(['phone', 'Name', 'name', 'x'], options, 'in.csv');
      } catch (err) {
        assert.ok(err instanceof UsageError);
        return err;
      }
      assert.fail('expected a UsageError');
    };
    const byDefault = twice({});
    assert.equal(byDefault.message, 'in.csv has more than one column "name" (columns 2 "Name", 3 "name"); each would be the same variable');
    assert.match(byDefault.hint ?? '', /--var-columns/);
    assert.equal(twice({ varColumns: ['NAME'] }).message, '--var-columns: in.csv has more than one column "NAME" (columns 2 "Name", 3 "name")');
    assert.equal(twice({ varColumns: ['x', 'X'] }).message, '--var-columns: "x" is named twice (column names are compared ignoring case and spacing)');
    assert.deepEqual(planColumns(['phone', 'Name', 'name', 'x'], { varColumns: ['x'] }, 'in.csv').vars, [3]);
  });

  test('two columns whose names differ only in spacing (a line break typed in a cell, a no-break space) are one name too', () => {
    for (const other of ['First\nname', 'First\u00a0name', 'First  name']) {
      assert.throws(
        () => planColumns(['phone', 'First name', other], {}, 'in.csv'),
        (err: unknown) => err instanceof UsageError && err.message === 'in.csv has more than one column "First name" (columns 2 "First name", 3 "First name"); each would be the same variable',
      );
    }
  });
});

describe('recipient JSON in ASCII', () => {
  test('non-ASCII values and column names are \\u escapes of the same JSON value', () => {
    const plan = planColumns(['msisdn', 'prénom', 'note'], { metaColumns: ['note'] }, 'in.csv');
    const values = ['x', 'Zoë 😀 €', 'naïve "q"\n\u2028'];
    const json = recipientJson(plan, '+447400900001', values);
    assert.match(json, /^[\x20-\x7e]*$/, json);
    assert.deepEqual(JSON.parse(json), { msisdn: '+447400900001', variables: { prénom: 'Zoë 😀 €' }, metaData: { note: 'naïve "q"\n\u2028' } });
    assert.equal(asciiJson('"plain"'), '"plain"');
    assert.equal(asciiJson(JSON.stringify('é\ud800')), '"\\u00e9\\ud800"');
    const frame = requestFrame({ accountReference: 'ACME01', body: { text: 'Grüße' }, metaData: { campaign: 'été' } });
    assert.match(frame.prefix + frame.suffix, /^[\x20-\x7e]*$/);
    assert.deepEqual(JSON.parse(`${frame.prefix}${frame.suffix}`), { accountReference: 'ACME01', body: { text: 'Grüße' }, recipients: [], metaData: { campaign: 'été' } });
  });
});
