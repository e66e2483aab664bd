// Before the one request of `msgr send`: V8 compiles undici's HTTP parser (WebAssembly) with its
// baseline compiler only. Its background tier-up otherwise costs ~100 ms of CPU, on a 2-core
// machine largely in the way of the request, and one request never benefits from it. Measured
// with `npm run bench -- --only startup --tricks` (docs/performance.md): the HTTPS send 38-45 %
// faster on Node 20, but 7-30 % slower on Node 24 and 26, so it is on before Node 22 only,
// decided here by the Node that runs msgr; the bench's builds force it on or off (the
// `liftoff-only` trick in scripts/build/tricks.mjs).
declare const __MSGR_LIFTOFF_ONLY__: boolean | undefined;

export async function prepareSingleRequest(nodeVersion: string): Promise<void> {
  const forced = typeof __MSGR_LIFTOFF_ONLY__ === 'boolean' ? __MSGR_LIFTOFF_ONLY__ : undefined;
  if (!(forced ?? Number(nodeVersion.split('.')[0]) < 22)) return;
  (await import('node:v8')).setFlagsFromString('--liftoff-only');
}
