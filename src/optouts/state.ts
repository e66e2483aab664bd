// What one number's changes in the store add up to (docs/optouts.md: "One store per account"):
// opted out or not, since when and why, and a reply that may be an opt-out still undecided. The
// one implementation of that rule, over any reference to a change: the store read into memory
// keeps the records themselves, the index beside the store keeps their byte offsets in the file
// (index-file.ts), and both step through a number's changes here, in file order.

/** A change of the store, as far as the rule needs it. */
export type StoreOp = 'add' | 'remove' | 'possible' | 'dismiss';

/** One number's state after its changes so far; R refers to a change (a record, or its offset). */
export interface NumberState<R> {
  /** Opted out now: the first `add` since the number was last removed, and the latest `add`. */
  readonly out?: { readonly since: R; readonly last: R } | undefined;
  /** A reply that may be an opt-out, not decided yet: the first since the last decision, the latest, how many. */
  readonly possible?: { readonly since: R; readonly last: R; readonly replies: number } | undefined;
}

/**
 * The state after `op` (referred to by `ref`). An `add` or a `remove` is a decision, which settles
 * a possible opt-out; `dismiss` settles it without one; a possible opt-out of a number opted out
 * already changes nothing.
 */
export function step<R>(state: NumberState<R> | undefined, op: StoreOp, ref: R): NumberState<R> | undefined {
  const s = state ?? {};
  switch (op) {
    case 'add':
      return { out: { since: s.out?.since ?? ref, last: ref } };
    case 'remove':
      return undefined;
    case 'dismiss':
      return s.out !== undefined ? { out: s.out } : undefined;
    case 'possible':
      if (s.out !== undefined) return s;
      return { possible: { since: s.possible?.since ?? ref, last: ref, replies: (s.possible?.replies ?? 0) + 1 } };
  }
}
