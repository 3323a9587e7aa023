import type ipaddr from 'ipaddr.js';
import { lazy } from './lazy.js';

/**
 * An API user's IPv4 rules (docs/behaviour.md#accounts-and-api-users): CIDR blocks to block or allow. ipaddr.js is
 * loaded when a scenario first has rules: most runs never need it.
 */

const ip4 = lazy<typeof ipaddr>('ipaddr.js');
type Range = [ipaddr.IPv4, number];

/** Parses an IPv4 address or CIDR block; undefined when it is neither. */
export function parseRange(text: string): Range | undefined {
  try {
    if (text.includes('/')) {
      const r = ip4().IPv4.parseCIDR(text);
      return [r[0], r[1]];
    }
    if (!ip4().IPv4.isValidFourPartDecimal(text)) return undefined;
    return [ip4().IPv4.parse(text), 32];
  } catch {
    return undefined;
  }
}

/**
 * An API user's IPv4 rules (docs/behaviour.md#accounts-and-api-users). An address is blocked when it is in a block
 * range and in no allow range, or when an allow list is given and it is in none of it.
 */
export class IpRules {
  constructor(
    private readonly block: Range[],
    private readonly allow: Range[],
  ) {}

  blocks(address: string): boolean {
    const ip = ip4().IPv4.parse(address);
    const allowed = this.allow.some((r) => ip.match(r));
    if (allowed) return false;
    if (this.allow.length > 0) return true;
    return this.block.some((r) => ip.match(r));
  }
}
