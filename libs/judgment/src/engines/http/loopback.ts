import { isIPv4 } from 'node:net';

/** Whether a URL points at this machine (127.0.0.0/8, localhost or [::1]): such a server needs no API key. */
export function isLoopbackUrl(url: string): boolean {
  if (!URL.canParse(url)) return false;
  // The WHATWG parser lower-cases the host, normalises IPv4 forms (127.1 → 127.0.0.1) and keeps IPv6 brackets.
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || (isIPv4(host) && host.startsWith('127.'));
}
