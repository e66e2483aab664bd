// Before the one request of `msgr send`: V8 compiles undici's HTTP parser (WebAssembly) with its
// baseline compiler only. Its background tier-up otherwise costs ~100 ms of CPU, on a 2-core
// machine largely in the way of the request, and one request never benefits from it. Measured
// with `npm run bench -- --only startup --tricks` (README, "Performance"): the HTTPS send 45 %
// faster on Node 20, but 7–10 % slower on Node 24 and 26, so the build keeps it for Node 20 only
// (the `liftoff-only` trick in scripts/build/tricks.mjs).
declare const __MSGR_LIFTOFF_ONLY__: boolean | undefined;

export async function prepareSingleRequest(): Promise<void> {
  if (typeof __MSGR_LIFTOFF_ONLY__ === 'boolean' && !__MSGR_LIFTOFF_ONLY__) return;
  (await import('node:v8')).setFlagsFromString('--liftoff-only');
}
