declare const __MSGR_VERSION__: string | undefined;
/** Injected by scripts/build.mjs from package.json. */
export const VERSION: string = typeof __MSGR_VERSION__ === 'string' ? __MSGR_VERSION__ : '0.0.0-dev';
