import { Writable } from 'node:stream';
import { createLogger } from '../../src/kernel/observability/logger.js';

/** A gateway logger at `level` whose lines (one JSON text each) are kept in `lines`. */
export function captureLogger(level = 'info') {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(line);
      done();
    },
  });
  return { logger: createLogger(level, dest as never), lines };
}

/** A log line with its time made constant (to compare two lines written moments apart). */
export const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
