// argv → options for `doctor`: the connection options every sending command takes.
import { parseConnectionOptions, type ConnectionOptions } from '../shared/connection.js';
import type { Raw } from '../shared/option-values.js';

export type DoctorOptions = Omit<ConnectionOptions, 'yes'>;

export function parseDoctorOptions(raw: Raw): DoctorOptions {
  return parseConnectionOptions(raw);
}
