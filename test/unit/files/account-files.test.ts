// The file names of an account's events and opt-outs: the account itself when it is a safe file
// name, else its safe part and the first 8 hex digits of its SHA-256, as earlier msgr versions
// named them (a store under another name would be a store msgr no longer reads).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { accountFile, accountSlug, NO_ACCOUNT } from '../../../src/files/account-files.js';

test('a safe account is its own name; none is _all', () => {
  assert.equal(accountSlug('ACME01'), 'ACME01');
  assert.equal(accountSlug(undefined), NO_ACCOUNT);
  assert.equal(accountSlug(''), NO_ACCOUNT);
  assert.equal(accountFile('/state', 'optouts', 'ACME01', 'jsonl'), join('/state', 'optouts', 'ACME01.jsonl'));
});

test('an account that is not a safe file name: its safe part and its hash, the same as ever', () => {
  assert.equal(accountSlug('Acme Corp/EU'), 'Acme_Corp_EU-472edbcc');
  assert.equal(accountSlug('../../etc'), 'etc-' + accountSlug('../../etc').slice(-8));
  assert.match(accountSlug('../../etc'), /^etc-[0-9a-f]{8}$/);
});
