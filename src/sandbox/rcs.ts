// RCS capability, simulated (docs/api.md, "Channels": "When channel is RCS and the device cannot receive RCS, the
// message is delivered by SMS"). The rule must be deterministic and easy to state, so a test or
// a demo can pick numbers on either side of it: an address is RCS capable when the last
// character's code is even. For a phone number that is the last digit: 0, 2, 4, 6, 8 capable;
// 1, 3, 5, 7, 9 fall back to SMS. Address-book contact ids follow the same rule on their last
// character (`c-10` capable, `c-11` falls back).

export function isRcsCapable(address: string): boolean {
  return address.length > 0 && (address.charCodeAt(address.length - 1) & 1) === 0;
}

export interface Delivery {
  readonly channel: 'SMS' | 'RCS';
  /** True when RCS was asked for and the recipient gets SMS instead. */
  readonly fallback: boolean;
}

const SMS: Delivery = { channel: 'SMS', fallback: false };
const RCS: Delivery = { channel: 'RCS', fallback: false };
const FALLBACK: Delivery = { channel: 'SMS', fallback: true };

/** The channel a recipient gets for the channel requested. */
export function deliveryFor(requested: 'SMS' | 'RCS', address: string): Delivery {
  if (requested === 'SMS') return SMS;
  return isRcsCapable(address) ? RCS : FALLBACK;
}
