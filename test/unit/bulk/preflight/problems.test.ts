// Invalid rows counted by cause, with their first rows and hints.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addToGroup, formatGroups, mergeGroups, type ProblemGroup } from '../../../../src/bulk/preflight/problems.js';

describe('problems grouped by cause', () => {
  test('counts per cause, the first three lines each, merged across a split as one pass would', () => {
    const one: ProblemGroup[] = [];
    const a: ProblemGroup[] = [];
    const b: ProblemGroup[] = [];
    for (let line = 2; line < 60; line++) {
      const cause = line % 10 === 0 ? 'fields' : 'scientific';
      const p = { line, column: cause === 'fields' ? '' : 'msisdn', message: `m${line}` };
      addToGroup(one, cause, p, undefined);
      addToGroup(line < 30 ? a : b, cause, p, undefined);
    }
    assert.deepEqual(mergeGroups(a, b), one);
    assert.deepEqual(
      one.map((g) => [g.cause, g.count, g.samples.map((s) => s.line)]),
      [
        ['scientific', 53, [2, 3, 4]],
        ['fields', 5, [10, 20, 30]],
      ],
    );
    const lines = formatGroups(one);
    assert.equal(lines.length, 2 * 5);
    assert.equal(lines[0], '  53 rows: numbers in scientific notation (column msisdn)');
    assert.equal(lines[4], '    … and 50 more');
  });
});
