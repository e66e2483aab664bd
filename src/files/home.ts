// The user's home folder, the base of msgr's default folders for profiles and bulk runs' state
// (src/profiles/paths.ts, src/files/state-dir.ts) when MSGR_CONFIG_DIR does not name one. HOME when it
// is set; without it (`env -i`, some cron daemons and service managers), the home the password
// database gives the user, as ssh and git find it: Node's os.homedir() reads both. A user with
// neither (a container started with a numeric user id unknown to /etc/passwd) has nowhere: that
// is said, with the setting that fixes it, instead of a system error (docs/files.md:
// "Profiles").
import { homedir } from 'node:os';
import { UsageError } from '../errors.js';

export function homeFolder(): string {
  let home = '';
  try {
    home = homedir();
  } catch {
    // uv_os_homedir: no HOME, and no entry for this user in the password database.
  }
  if (home !== '') return home;
  throw new UsageError('msgr has no folder for its profiles and bulk runs: HOME is not set, and this user has no home folder in the password database; nothing was sent', {
    hint: 'Set MSGR_CONFIG_DIR to a folder this user can write to (msgr keeps its profiles and the journals of bulk runs there), or set HOME, then run the same command again.',
  });
}
