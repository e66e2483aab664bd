// argv → options for `msgr segments`.
import { UsageError } from '../../errors.js';
import { parseEncoding, type FileEncoding } from '../../message/text-file.js';
import { verbosity } from '../../output/ui.js';
import { bool, str, type Raw } from '../shared/option-values.js';

export interface SegmentsOptions {
  readonly text?: string | undefined;
  readonly textFile?: string | undefined;
  readonly textEncoding?: FileEncoding | undefined;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

export function parseSegmentsOptions(text: string | undefined, raw: Raw): SegmentsOptions {
  const textFile = str(raw, 'textFile');
  if (text !== undefined && textFile !== undefined) throw new UsageError('give the text as an argument or with --text-file, not both');
  const encodingText = str(raw, 'textEncoding');
  const textEncoding = encodingText === undefined ? undefined : parseEncoding(encodingText);
  if (encodingText !== undefined && textEncoding === undefined) {
    throw new UsageError(`--text-encoding: "${encodingText}" is not supported`, { hint: 'Use utf8 (the default), latin1, utf16le or utf16be.' });
  }
  const { quiet, verbose } = verbosity({ quiet: bool(raw, 'quiet'), verbose: bool(raw, 'verbose') });
  return { text, textFile, textEncoding, json: bool(raw, 'json') === true, quiet, verbose };
}
