import { createHash, createHmac } from 'node:crypto';
import type { ReceivedRequest } from './fake-upstream.js';

/**
 * Checks an AWS Signature Version 4 Authorization header of a request the fake received,
 * written for tests from AWS's published algorithm (canonical request, string to sign,
 * derived key). Returns what it found so tests can assert the credential scope.
 */
export interface SigV4Check {
  valid: boolean;
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  expected: string;
  actual: string;
}

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** AWS's URI encoding: everything but unreserved characters percent-encoded, upper-case hex. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function verifySigV4(req: ReceivedRequest, secretAccessKey: string): SigV4Check {
  const auth = String(req.headers.authorization ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) throw new Error(`not a SigV4 Authorization header: ${auth}`);
  const [, accessKeyId, date, region, service, signedList, actual] = m as unknown as string[];
  const signedHeaders = signedList!.split(';');
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  // Services other than S3 sign the path with each segment encoded once more.
  const canonicalPath = req.path
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
  const query = new URLSearchParams(req.url.split('?')[1] ?? '');
  const canonicalQuery = [...query.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .map(
      (name) =>
        `${name}:${String(req.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [req.method, canonicalPath, canonicalQuery, canonicalHeaders, signedList, sha256(req.body)].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  return { valid: expected === actual, accessKeyId: accessKeyId!, date: date!, region: region!, service: service!, signedHeaders, expected, actual: actual! };
}
