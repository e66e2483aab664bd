// `msgr optout list --json` as the opt-out tests read it, run in-process.
import assert from 'node:assert/strict';
import { runInProcess } from './in-process.js';

export interface ListedOptOut {
  number: string;
  reason: string;
  source: string;
  since: string;
  evidence: Record<string, string> | null;
  store: string;
}

/** The numbers `msgr optout list --account ACCOUNT --json` lists (it must exit 0). */
export async function listedOptOuts(env: Record<string, string>, account: string): Promise<ListedOptOut[]> {
  const r = await runInProcess(['optout', 'list', '--account', account, '--json'], { env });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { numbers: ListedOptOut[] }).numbers;
}
