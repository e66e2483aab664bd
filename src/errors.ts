// The error family and its exit codes: the table in docs/contract.md: "Exit codes" (and its
// copy in README.md, generated from the same table). Commands throw; main.ts catches once and maps to process exit codes; under
// --json every error becomes one document of one shape (docs/contract.md: "Errors as JSON").

export const ExitCode = {
  OK: 0,
  INTERNAL: 1,
  USAGE: 2,
  AUTH: 3,
  REJECTED: 4,
  NOT_SENT: 5,
  OUTCOME_UNKNOWN: 6,
  PARTIAL: 7,
  WINDOW_CLOSED: 8,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface MsgrErrorOptions {
  /** What to do next, shown under the message. */
  hint?: string;
  /**
   * A whole document for stdout under --json instead of the error shape (a bulk run's summary,
   * which carries `exitCode` at its top level).
   */
  json?: unknown;
  /** The --json document, made with the error's own exit code (a summary that names it). */
  jsonFor?: (exitCode: ExitCode) => unknown;
  /** The HTTP status of an API answer that failed. */
  status?: number;
  /** The server's parsed error body (undefined when it sent none, or not JSON). */
  body?: unknown;
  cause?: unknown;
}

/** The one shape of a failure under --json (docs/contract.md: "Errors as JSON"). */
export interface ErrorDocument {
  readonly error: {
    readonly message: string;
    readonly hint: string | null;
    readonly exitCode: ExitCode;
    readonly status?: number;
    readonly body?: unknown;
  };
}

export function errorDocument(message: string, hint: string | undefined, exitCode: ExitCode, http?: { status?: number | undefined; body?: unknown }): ErrorDocument {
  return {
    error: {
      message,
      hint: hint ?? null,
      exitCode,
      ...(http?.status !== undefined ? { status: http.status, body: http.body ?? null } : {}),
    },
  };
}

export class MsgrError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  readonly json: unknown;
  readonly status: number | undefined;
  readonly body: unknown;
  constructor(exitCode: ExitCode, message: string, options: MsgrErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = exitCode;
    this.hint = options.hint;
    this.json = options.jsonFor !== undefined ? options.jsonFor(exitCode) : options.json;
    this.status = options.status;
    this.body = options.body;
  }

  /** What --json prints: the summary this error carries, or the one error shape. */
  toJson(): unknown {
    if (this.json !== undefined) return this.json;
    return errorDocument(this.message, this.hint, this.exitCode, { status: this.status, body: this.body });
  }
}

/** Usage, input or configuration error; nothing was sent (exit 2). */
export class UsageError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.USAGE, message, options);
    this.name = 'UsageError';
  }
}

/** The API refused the key or the account: 401, 403 (exit 3). */
export class AuthError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.AUTH, message, options);
    this.name = 'AuthError';
  }
}

/** The API rejected the request: any other 4xx (exit 4). */
export class RejectedError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.REJECTED, message, options);
    this.name = 'RejectedError';
  }
}

/** Not sent, temporary: no connection, or 429/503 retries exhausted (exit 5). Safe to rerun. */
export class NotSentError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.NOT_SENT, message, options);
    this.name = 'NotSentError';
  }
}

/** The request left but no answer came: timeout, reset, 500/502/504 (exit 6). Check first. */
export class OutcomeUnknownError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.OUTCOME_UNKNOWN, message, options);
    this.name = 'OutcomeUnknownError';
  }
}

/** A bulk run ended with rows not accepted, or was stopped with batches in doubt (exit 7). */
export class PartialError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.PARTIAL, message, options);
    this.name = 'PartialError';
  }
}

/**
 * Outside its send window, with --exit-when-closed (a bulk run) or for `send`: nothing more
 * leaves now; the same command (the resume) goes on once the window opens (exit 8).
 */
export class WindowClosedError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.WINDOW_CLOSED, message, options);
    this.name = 'WindowClosedError';
  }
}

/** Interrupted by Ctrl-C or SIGTERM (exit 130). */
export class InterruptedError extends MsgrError {
  constructor(message: string, options?: MsgrErrorOptions) {
    super(ExitCode.INTERRUPTED, message, options);
    this.name = 'InterruptedError';
  }
}

/** What to do about a file named by the user that could not be read (fileProblem's causes); undefined for others. */
export function fileHint(err: unknown): string | undefined {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
      return 'Check the file name and its folder: a relative path is read from the folder msgr runs in.';
    case 'EISDIR':
      return 'Give the path of a file, not of a folder.';
    case 'EACCES':
    case 'EPERM':
      return 'Make the file readable by the user msgr runs as.';
    default:
      return undefined;
  }
}

/** Why a file named by the user could not be read, in words: `cannot read FILE (no such file)`. */
export function fileProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'is a folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return code ?? (err instanceof Error ? err.message : String(err));
  }
}
