// The campaign engine's front door for `msgr send-bulk` (src/commands/send-bulk/run.ts imports
// nothing else of src/bulk/; eslint.config.js holds it). A facade, not a barrel: a handful of
// functions, each one stage of a run in a file of its own under bulk/stages/, taking the Command
// (the Context, the Ui, the campaign of bulk/campaign.ts and the RunContext) and what the stages
// before it found, in this order:
//
//   openRun    (cmd)                     → OpenRun: which run this is, decided once (new, resumed,
//              restarted; its lock and journal), the input, what it sends (from the campaign or the
//              journal), where, what earlier runs accepted
//   preflight  (cmd, open)               → Checked: every row checked before anything is sent; its
//              lines; the refusals, those opening decided among them
//   showTrial  (cmd, open, checked)      a preview or a dry run, which stop there
//   confirm    (cmd, open, checked)      the question before sending (or the production guard's stop)
//   sample     (cmd, open, checked)      --sample-to: the first rows' messages to the sample numbers,
//              a run of their own
//   send       (cmd, open, checked)      → Sent: the journal and the send pass
//   summarise  (cmd, open, checked, sent)  the summary, and the error that gives the exit code
//
// Two passes: the preflight reads the CSV, checks every row and writes one line per row to the
// spool (the verdict, and the recipient's JSON when it is to be sent); the send pass reads the
// spool and joins those lines into request bodies, so neither the CSV parse nor the number checks
// run twice. Batch k is always the k-th batch the grouping closes (with one shared message, the
// k-th group of --batch-size rows to send), so a resumed run rebuilds the same batches (same
// bodies, same Idempotency-Keys) from the same file, and skips the ones the journal says are done
// (docs/campaign-input.md: "Scale", and docs/files.md: "Nothing lost, nothing sent twice"). Where each concept lives:
// docs/design.md.
export type { Campaign, Purpose, Rerun, ResumeArgs } from './campaign.js';
export { RunContext } from './run-context.js';
export { openRun, type Command, type OpenRun } from './stages/opening.js';
export { preflight, type Checked } from './stages/checking.js';
export { showTrial } from './stages/trial.js';
export { confirm } from './stages/confirming.js';
export { sample } from './stages/sampling.js';
export { send, type Sent } from './stages/sending.js';
export { summarise } from './stages/summarising.js';
