import { ANSWERING_FAULTS, type Fault } from '../scenario/schema.js';
import type { RandomSource } from '../world/random.js';

/**
 * What a scenario rule's `fault` puts on the wire instead of (or over) the service's answer. `reset`, `hang` and
 * the proxy pages never reach the service; `truncate` and `garbage` break an answer the service gave.
 */

/** Whether a fault keeps the request from reaching the service (nothing is checked, created or remembered). */
export function stopsBeforeService(
  fault: Fault | undefined,
): fault is 'reset' | 'hang' | 'proxy-502' | 'proxy-503' | 'proxy-504' {
  return fault !== undefined && !ANSWERING_FAULTS.has(fault);
}

/** The HTML error page a proxy in front of the service sends. */
export function proxyPage(status: number): string {
  const title =
    status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Temporarily Unavailable' : 'Gateway Time-out';
  return `<html>\r\n<head><title>${status} ${title}</title></head>\r\n<body>\r\n<center><h1>${status} ${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
}

/** A body that starts like the answer and is not JSON. */
export function garbage(random: RandomSource): string {
  return `\u0000<<garbled ${random.chars(24)}>>\u00ff{"id":`;
}
