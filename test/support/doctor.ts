// `msgr doctor --json` as its tests read it: the document, a step by id, and the rule that doctor
// never POSTs (every server a doctor test runs records what it received).
import assert from 'node:assert/strict';
import type { RunResult } from './cli.js';
import type { TestServer } from './test-server.js';

export interface DoctorDoc {
  ok: boolean;
  exitCode: number;
  steps: Array<{ id: string; status: string; detail: string; hint?: string | null; exitCode?: number | null; data?: Record<string, unknown> | null }>;
}

export function doc(r: RunResult): DoctorDoc {
  return JSON.parse(r.stdout) as DoctorDoc;
}

export const step = (d: DoctorDoc, id: string): DoctorDoc['steps'][number] => {
  const s = d.steps.find((x) => x.id === id);
  assert.ok(s !== undefined, `no step ${id}`);
  return s;
};

/** Doctor asked the server for nothing but a GET of the base URL. */
export function assertNeverPosted(server: TestServer): void {
  assert.deepEqual(server.requests.filter((r) => r.method !== 'GET'), [], 'doctor sent something other than a GET');
  for (const r of server.requests) assert.equal(r.url, '/', 'doctor asked for something other than the base URL');
}
