/**
 * TLS failures in words: what actually happened (wrong protocol, a certificate not trusted, for another host name,
 * expired) and what to do about it, naming the settings as the caller spells them (`--base-url`, `--ca-file`).
 * OpenSSL's own text ("ssl3_get_record:wrong version number") says none of that, and "verification failed" was wrong
 * for half of these cases: nothing was verified when the server does not speak TLS at all.
 */
import type { SettingNames } from './options.ts';

/** What went wrong, as a stable value (the `problem` of OpsManagerTransportError). */
export type TlsProblem =
  | 'wrong-protocol'
  | 'untrusted-certificate'
  | 'hostname-mismatch'
  | 'expired-certificate'
  | 'certificate-not-yet-valid'
  | 'revoked-certificate'
  | 'client-certificate-required'
  | 'no-common-protocol'
  | 'tls-failure';

/** A TLS failure explained: the problem, what happened, and the remedy. */
export interface TlsDiagnosis {
  problem: TlsProblem;
  /** What happened, e.g. `https://om:8443 did not answer with TLS`. */
  what: string;
  /** What to do, naming the settings. */
  remedy: string;
}

/** What `diagnoseTlsFailure` needs to know about the client. */
export interface TlsContext {
  /** The URL requested (only its origin is shown). */
  url: URL;
  names: Pick<SettingNames, 'baseUrl' | 'caFile'>;
  /** The CA file given, if any (a certificate it does not vouch for is then a different story). */
  caFile: string | undefined;
}

const NOT_TLS = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_UNKNOWN_PROTOCOL',
  'ERR_SSL_RECORD_LAYER_FAILURE',
  'ERR_SSL_HTTP_REQUEST',
]);
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
]);
const NO_COMMON_PROTOCOL = new Set([
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE',
  'ERR_SSL_NO_SHARED_CIPHER',
]);
const CLIENT_CERTIFICATE = new Set([
  'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
  'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE',
]);

/** The codes and messages along an error's cause chain (undici wraps the socket's error). */
function chain(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    messages.push(current.message);
    current = current.cause;
  }
  return { codes, messages };
}

/** Node's "is not in the cert's altnames/list: ..." part of a host name mismatch, which names what the cert covers. */
function certificateNames(messages: readonly string[]): string {
  for (const message of messages) {
    const match = /(?:Host|IP): .*? is not in the cert's (?:altnames|list): ([^\n]{1,300})/.exec(message);
    if (match?.[1]) return ` (the certificate is for ${match[1].trim()})`;
  }
  return '';
}

/** Explains a TLS failure of a request to `context.url`. */
export function diagnoseTlsFailure(error: unknown, context: TlsContext): TlsDiagnosis {
  const { codes, messages } = chain(error);
  const has = (set: ReadonlySet<string>) => codes.some((code) => set.has(code));
  const origin = context.url.origin;
  const host = context.url.hostname;
  const { baseUrl, caFile } = context.names;
  if (has(NOT_TLS)) {
    return {
      problem: 'wrong-protocol',
      what: `wrong protocol: ${origin} did not answer with TLS (it seems to speak plain HTTP on that port)`,
      remedy: `if Ops Manager serves plain HTTP there, write http:// in ${baseUrl}; otherwise use the port it serves HTTPS on`,
    };
  }
  if (codes.includes('ERR_TLS_CERT_ALTNAME_INVALID')) {
    return {
      problem: 'hostname-mismatch',
      what: `host name mismatch: the certificate of ${origin} is not valid for ${host}${certificateNames(messages)}`,
      remedy: `put a host name the certificate names in ${baseUrl}, or have the certificate reissued for ${host}`,
    };
  }
  if (codes.includes('CERT_HAS_EXPIRED')) {
    return {
      problem: 'expired-certificate',
      what: `the certificate of ${origin} has expired`,
      remedy: "renew Ops Manager's certificate (if it has not expired, this machine's clock is wrong)",
    };
  }
  if (codes.includes('CERT_NOT_YET_VALID')) {
    return {
      problem: 'certificate-not-yet-valid',
      what: `the certificate of ${origin} is not valid yet`,
      remedy: "check this machine's clock, or the certificate's start date",
    };
  }
  if (codes.includes('CERT_REVOKED')) {
    return {
      problem: 'revoked-certificate',
      what: `the certificate of ${origin} has been revoked`,
      remedy: 'Ops Manager needs a new certificate',
    };
  }
  if (has(UNTRUSTED)) {
    const selfSigned = codes.includes('DEPTH_ZERO_SELF_SIGNED_CERT');
    const signer = selfSigned ? 'that is self-signed' : 'signed by a certificate authority this client does not know';
    return {
      problem: 'untrusted-certificate',
      what: `certificate not trusted: ${origin} presented a certificate ${signer}`,
      remedy:
        context.caFile === undefined
          ? `pass the PEM certificate of the CA that signed it (or the self-signed certificate itself) with ${caFile}`
          : `${caFile} ${JSON.stringify(context.caFile)} does not hold the CA that signed it: add that CA's PEM certificate to it`,
    };
  }
  if (has(CLIENT_CERTIFICATE)) {
    return {
      problem: 'client-certificate-required',
      what: `${origin} asks for a client certificate (mutual TLS)`,
      remedy: 'opsman-gitops authenticates with API keys and sends none: let it reach Ops Manager without one',
    };
  }
  if (has(NO_COMMON_PROTOCOL)) {
    return {
      problem: 'no-common-protocol',
      what: `TLS handshake with ${origin} failed: the server and this client share no TLS version or cipher`,
      remedy: 'Ops Manager must offer TLS 1.2 or later',
    };
  }
  return {
    problem: 'tls-failure',
    what: `TLS with ${origin} failed`,
    remedy: `check the server's certificate (openssl s_client -connect ${host}:${context.url.port || '443'} -showcerts)`,
  };
}

/** Explanation of a plain-HTTP URL whose server answers with TLS (found by a probe after the connection failed). */
export function httpToTlsServer(url: URL, names: Pick<SettingNames, 'baseUrl'>): TlsDiagnosis {
  return {
    problem: 'wrong-protocol',
    what: `wrong protocol: ${url.origin} speaks TLS (HTTPS) and closed the plain HTTP connection`,
    remedy: `write https:// in ${names.baseUrl}`,
  };
}
