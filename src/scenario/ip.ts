import { BlockList, isIPv4 } from 'node:net';

/** An IPv4 address or CIDR block, parsed; undefined when it is neither. */
export type Range = { address: string; prefix: number };

/** Parses an IPv4 address or CIDR block (`a.b.c.d/n`); undefined when it is neither. */
export function parseRange(text: string): Range | undefined {
  const [address, bits, ...more] = text.split('/');
  if (more.length > 0 || !isIPv4(address)) return undefined;
  if (bits === undefined) return { address, prefix: 32 };
  if (!/^\d{1,2}$/.test(bits) || Number(bits) > 32) return undefined;
  return { address, prefix: Number(bits) };
}

/** An API user's IPv4 rules (docs/behaviour.md#accounts-and-api-users): blocked unless allowed. */
export class IpRules {
  private readonly block = new BlockList();
  private readonly allow = new BlockList();
  private readonly allowList: boolean;

  constructor(block: Range[], allow: Range[]) {
    for (const r of block) this.block.addSubnet(r.address, r.prefix, 'ipv4');
    for (const r of allow) this.allow.addSubnet(r.address, r.prefix, 'ipv4');
    this.allowList = allow.length > 0;
  }

  blocks(address: string): boolean {
    if (this.allow.check(address, 'ipv4')) return false;
    return this.allowList || this.block.check(address, 'ipv4');
  }
}
