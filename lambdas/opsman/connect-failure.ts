/**
 * A connection that reached no server, in a person's words: undici says only `connect ECONNREFUSED 10.0.0.5:8443` or
 * `getaddrinfo ENOTFOUND om.example`, which names neither what it means nor the setting that chose that address,
 * while every other failure to reach Ops Manager (a wrong protocol, an untrusted certificate, a proxy's 404 page) says
 * what to change.
 */

/**
 * The failure's text with what it means and the setting to check (`settingNames.baseUrl`), or the text alone for any
 * other failure. Not used behind a proxy: then the refused connection or unknown host is the proxy's.
 */
export function connectFailureText(code: unknown, message: string, baseUrlSetting: string): string {
  if (code === 'ECONNREFUSED') {
    return `${message}: nothing accepts connections at that address; check that Ops Manager is running and that ${baseUrlSetting} names its host and port`;
  }
  if (code === 'ENOTFOUND') return `${message}: no such host name; check the host in ${baseUrlSetting}`;
  return message;
}
