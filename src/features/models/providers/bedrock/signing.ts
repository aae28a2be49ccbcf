import { createRequire } from 'node:module';
import type Aws4 from 'aws4';
import type { UpstreamRequest } from '../shared/upstream-request.js';
import type { AwsCredentials } from './credentials.js';

const require = createRequire(import.meta.url);
let aws4: typeof Aws4 | undefined;

/** Signs a Bedrock runtime request with AWS Signature Version 4 (service "bedrock"). */
export function signedRequest(method: string, url: string, headers: Record<string, string>, body: string, credentials: AwsCredentials): UpstreamRequest {
  const target = new URL(url);
  const request = {
    host: target.host,
    path: `${target.pathname}${target.search}`,
    method,
    service: 'bedrock',
    region: credentials.region,
    headers: { ...headers, host: target.host },
    body,
  };
  // aws4 is loaded when a gateway first signs a Bedrock request, not at start-up.
  aws4 ??= require('aws4') as typeof Aws4;
  aws4.sign(request, {
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    sessionToken: credentials.sessionToken,
  });
  const signed: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) signed[name.toLowerCase()] = String(value);
  return { method, url, headers: signed, body };
}
