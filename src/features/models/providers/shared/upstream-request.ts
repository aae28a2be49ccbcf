import type { Readable } from 'node:stream';

/** One call a provider adapter asks the gateway to make (sent by the forward stage through the upstream client). */
export interface UpstreamRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | Readable | null;
}
