import cluster from 'node:cluster';
import { pino, type Logger, type DestinationStream } from 'pino';
import { redactLogLine } from '../errors/redact.js';

export type { Logger };

/**
 * Paths pino masks in every log line. Every line is then passed, as written, through the one
 * redactor (errors/redact.ts): the gateway's secrets in any escaping, and credential shapes.
 */
export const REDACT_PATHS = [
  'headers.authorization',
  'headers["x-gateway-api-key"]',
  'headers["x-gateway-token"]',
  'headers["x-api-key"]',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers["x-gateway-api-key"]',
  'req.headers["x-gateway-token"]',
  'req.headers["x-api-key"]',
  'apiKey',
  'api_key',
  'token',
  'secret',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.secret',
  '*.clientSecret',
  '*.aws_secret_access_key',
  '*.aws_session_token',
  '*.vertex_service_account_json',
];

/**
 * The workers of a cluster write to one stdout pipe: each line goes out in a write of its own
 * (sync), so lines from two workers never interleave (a pipe keeps writes up to 4 KiB whole).
 */
function workerDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      // The workers of a cluster (server.workers) share stdout: each line says which one wrote it.
      base: cluster.isWorker ? { service: 'ai-gateway', pid: process.pid } : { service: 'ai-gateway' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: { streamWrite: redactLogLine },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Batched, asynchronous writes to stdout; flushed at least every 250 ms so an operator's
    // terminal never lags, and on exit.
    destination ?? (cluster.isWorker ? workerDestination() : pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 })),
  );
}
