// Scenario: every TLS error code maps to what happened and a remedy naming the caller's settings (CLI flags, Lambda variables or option names), and the insecure warning and the request deadline name the settings the same way.
import { describe, expect, it } from 'vitest';
import { createOpsManagerClient, OpsManagerValidationError } from '../../../lambdas/opsman/index.ts';
import { DEFAULT_SETTING_NAMES } from '../../../lambdas/opsman/options.ts';
import { diagnoseTlsFailure, type TlsProblem } from '../../../lambdas/opsman/tls-failure.ts';
import { INSECURE_WARNING, insecureWarning } from '../../../lambdas/opsman/transport.ts';
import { TEST_PRIVATE_KEY } from '../../helpers/client-fixtures.ts';

const URL_ = new URL('https://om.example.com:8443/api/public/v1.0/groups');
const CLI = { baseUrl: '--base-url', caFile: '--ca-file' };

/** An error as undici hands it over: the TLS socket's error, possibly wrapped once. */
function tlsError(code: string, message = 'tls said no', wrapped = false): Error {
  const inner = Object.assign(new Error(message), { code });
  return wrapped ? Object.assign(new Error('fetch failed', { cause: inner }), { code: 'UND_ERR_SOCKET' }) : inner;
}

describe('diagnoseTlsFailure', () => {
  it.each<[string, TlsProblem, RegExp]>([
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'wrong-protocol', /did not answer with TLS.*write http:\/\/ in --base-url/],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'wrong-protocol', /did not answer with TLS/],
    ['ERR_SSL_HTTP_REQUEST', 'wrong-protocol', /did not answer with TLS/],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'untrusted-certificate', /a certificate that is self-signed.*with --ca-file/],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'untrusted-certificate', /certificate authority this client does not know/],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'untrusted-certificate', /with --ca-file/],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'hostname-mismatch', /not valid for om\.example\.com.*in --base-url/],
    ['CERT_HAS_EXPIRED', 'expired-certificate', /has expired; renew Ops Manager's certificate/],
    ['CERT_NOT_YET_VALID', 'certificate-not-yet-valid', /not valid yet; check this machine's clock/],
    ['CERT_REVOKED', 'revoked-certificate', /has been revoked/],
    ['ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', 'client-certificate-required', /client certificate/],
    ['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'no-common-protocol', /share no TLS version or cipher/],
    ['ERR_SSL_SOMETHING_NEW', 'tls-failure', /openssl s_client -connect om\.example\.com:8443/],
  ])('%s -> %s', (code, problem, text) => {
    for (const wrapped of [false, true]) {
      const diagnosis = diagnoseTlsFailure(tlsError(code, 'x', wrapped), { url: URL_, names: CLI, caFile: undefined });
      expect(diagnosis.problem).toBe(problem);
      expect(`${diagnosis.what}; ${diagnosis.remedy}`).toMatch(text);
    }
  });

  it('names port 443 for a URL without a port in its openssl advice', () => {
    const url = new URL('https://om.example.com/api/public/v1.0/groups');
    const diagnosis = diagnoseTlsFailure(tlsError('ERR_SSL_SOMETHING_NEW'), { url, names: CLI, caFile: undefined });
    expect(diagnosis.remedy).toBe(
      "check the server's certificate (openssl s_client -connect om.example.com:443 -showcerts)",
    );
  });

  it("names the certificate's own names on a host name mismatch", () => {
    const error = tlsError(
      'ERR_TLS_CERT_ALTNAME_INVALID',
      "Hostname/IP does not match certificate's altnames: Host: om.example.com. is not in the cert's altnames: DNS:om.internal, DNS:om",
    );
    const diagnosis = diagnoseTlsFailure(error, { url: URL_, names: CLI, caFile: undefined });
    expect(diagnosis.what).toBe(
      'host name mismatch: the certificate of https://om.example.com:8443 is not valid for om.example.com (the certificate is for DNS:om.internal, DNS:om)',
    );
  });

  it('speaks the option names by default, and the Lambda variables when told', () => {
    const untrusted = tlsError('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(
      diagnoseTlsFailure(untrusted, { url: URL_, names: DEFAULT_SETTING_NAMES, caFile: undefined }).remedy,
    ).toMatch(/ with caFile$/);
    const lambda = { baseUrl: 'OPSMAN_BASE_URL', caFile: 'OPSMAN_CA_FILE' };
    expect(diagnoseTlsFailure(untrusted, { url: URL_, names: lambda, caFile: '/var/task/ca.pem' }).remedy).toBe(
      `OPSMAN_CA_FILE "/var/task/ca.pem" does not hold the CA that signed it: add that CA's PEM certificate to it`,
    );
  });
});

describe('setting names in the other messages', () => {
  it('the insecure warning names the flags it is given, and the options by default', () => {
    expect(insecureWarning({ caFile: '--ca-file', insecureSkipVerify: '--insecure-skip-verify' })).toBe(
      "WARNING: opsman-gitops: TLS certificate verification is DISABLED (--insecure-skip-verify). Anyone on the network path can read and alter Ops Manager traffic. Use --ca-file with your CA's certificate instead.",
    );
    expect(INSECURE_WARNING).toContain('(insecureSkipVerify)');
    expect(INSECURE_WARNING).toContain('Use caFile');
  });

  it('a CA file that cannot be read is named as the caller names it', () => {
    const create = () =>
      createOpsManagerClient({
        baseUrl: 'https://om.example.com/api/public/v1.0',
        publicKey: 'p',
        privateKey: TEST_PRIVATE_KEY,
        caFile: '/nonexistent/ca.pem',
        settingNames: { caFile: '--ca-file' },
      });
    expect(create).toThrow(OpsManagerValidationError);
    expect(create).toThrow('cannot read --ca-file "/nonexistent/ca.pem": it does not exist (ENOENT)');
  });

  it('refuses a setting name that is not printable text', () => {
    expect(() =>
      createOpsManagerClient({
        baseUrl: 'https://om.example.com/api/public/v1.0',
        publicKey: 'p',
        privateKey: TEST_PRIVATE_KEY,
        settingNames: { caFile: '--ca\nfile' },
      }),
    ).toThrow('settingNames.caFile must be printable text');
  });
});
