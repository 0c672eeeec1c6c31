/** Whether a host name or address names this machine only. */

/**
 * True for `localhost` (and names under it, RFC 6761), 127.0.0.0/8 and ::1, with or without the brackets a URL puts
 * around an IPv6 address; case-insensitive. Used where plain HTTP or an unauthenticated listener is safe only when
 * nothing leaves the machine.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}
