import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { quoted } from '../contract/response.js';

/**
 * DNS rebinding protection for the control plane: a page can point its name at 127.0.0.1, not change the Host header,
 * so `/__sim/` answers only localhost, IP addresses, the address listened on and `--allowed-hosts` names.
 */
export class AllowedHosts {
  private readonly names = new Set<string>();
  private readonly domains: string[] = [];

  /** The names an operator allowed, and the host of the public URL answers link to (when there is one). */
  constructor(names: readonly string[] = [], publicUrl?: string) {
    for (const name of names) this.add(name);
    // A public URL that does not parse names no host.
    if (publicUrl !== undefined && URL.canParse(publicUrl))
      this.add(new URL(publicUrl).hostname.replace(/^\[|\]$/g, ''));
  }

  /** Allows one more name (`.example.com`: the domain and its subdomains). */
  add(raw: string): void {
    const name = raw.trim().toLowerCase().replace(/\.$/, '');
    if (name.startsWith('.')) this.domains.push(name.slice(1));
    else if (name !== '') this.names.add(name);
  }

  /** Whether a Host header value names this machine or an allowed name. No Host at all: not a browser, allowed. */
  allows(hostHeader: string | undefined): boolean {
    if (hostHeader === undefined) return true;
    const name = hostnameOf(hostHeader);
    if (name === undefined) return false;
    if (name === 'localhost' || name.endsWith('.localhost') || isIP(name) !== 0 || this.names.has(name)) return true;
    return this.domains.some((d) => name === d || name.endsWith(`.${d}`));
  }
}

/** The host name of a Host header, lower case, without port, brackets or a final dot; undefined when it is not one. */
export function hostnameOf(hostHeader: string): string | undefined {
  const value = hostHeader.trim().toLowerCase();
  const match = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value) ?? /^([a-z0-9_.-]+?)\.?(?::\d{1,5})?$/.exec(value);
  return match?.[1];
}

/** The longest name DNS resolves (RFC 1035): the longest `allowedHosts` entry, and Host offered back as one. */
export const MAX_HOST_NAME = 253;

/** Middleware: a request addressed to another name gets 403 with a JSON error saying which flag allows it. */
export function requireAllowedHost(allowed: AllowedHosts) {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (allowed.allows(host)) return next();
    const name = hostnameOf(host ?? '');
    // Only a name DNS could resolve is offered back as the flag's value (a 10,000-character Host is not one).
    const flag = name === undefined || name.length > MAX_HOST_NAME ? '<name>' : name;
    res.status(403).json({
      error: `the control API answers only requests addressed to this machine, not to ${quoted(name ?? String(host), 100)} (protection against DNS rebinding): if you reach the simulator by that name, start it with --allowed-hosts ${flag} (option allowedHosts)`,
    });
  };
}
