import { pino, type Logger } from 'pino';
import { beforeLogLine } from './logger.js';

export const LEVEL_VALUES = { debug: 20, info: 30, warn: 40, error: 50 } as const;
export type LineLevel = keyof typeof LEVEL_VALUES;

interface Destination {
  write(line: string): unknown;
  /** Present on pino's own destinations (sonic-boom). */
  flushSync?(): void;
}

/**
 * Lines handed to a pino destination together, at most this many bytes: pino's destination
 * appends each write to its pending text and measures that text again on every write (a copy
 * of all it holds, per line). 4 KiB keeps each hand-over one atomic pipe write for cluster
 * workers sharing stdout.
 */
const BATCH_BYTES = 4096;

/** JSON text of a string value that repeats (routes, providers, server names), quoted once. */
const quoted = new Map<string, string>();
export function quote(value: string): string {
  let out = quoted.get(value);
  if (out === undefined) {
    out = JSON.stringify(value);
    if (quoted.size < 4096) quoted.set(value, out);
  }
  return out;
}

let lastMs = 0;
let lastTime = '';
/** pino's ISO time, made at most once per millisecond. */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = new Date(now).toISOString();
  }
  return lastTime;
}

/** Lines not yet handed to each pino destination, and their UTF-8 size. */
const held = new Map<Destination, { text: string; bytes: number }>();
let flushScheduled = false;
let hooked = false;

/** Hands every line held to its destination (before any other log line, at the end of the loop's turn, at exit). */
function flushHeld(): void {
  flushScheduled = false;
  if (!held.size) return;
  const batches = [...held];
  held.clear();
  for (const [destination, batch] of batches) {
    try {
      destination.write(batch.text);
    } catch {
      // a destination closed meanwhile (the gateway stopped): its lines have nowhere to go
    }
  }
}

function flushAtExit(): void {
  const destinations = [...held.keys()];
  flushHeld();
  for (const destination of destinations) {
    try {
      destination.flushSync?.();
    } catch {
      // a destination that cannot flush now loses nothing it had not already lost
    }
  }
}

function hold(destination: Destination, text: string): void {
  if (!hooked) {
    hooked = true;
    beforeLogLine(flushHeld);
    process.once('exit', flushAtExit);
  }
  const bytes = Buffer.byteLength(text);
  const batch = held.get(destination);
  if (!batch) held.set(destination, { text, bytes });
  else if (batch.bytes + bytes > BATCH_BYTES) {
    destination.write(batch.text);
    batch.text = text;
    batch.bytes = bytes;
  } else {
    batch.text += text;
    batch.bytes += bytes;
  }
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushHeld);
  }
}

/**
 * Writes log lines of a fixed shape (the per-request line, the MCP audit line) as the JSON text
 * pino writes for `logger[level](fields, msg)`: `{"level":..,"time":"..",<the logger's
 * bindings>,<fields>,"msg":".."}`, straight to the logger's destination, without pino's generic
 * serializer. On pino's own destinations the lines of one turn of the event loop are handed
 * over together (and before any other log line, so the order of lines is kept). `fixed` is
 * false for a logger this cannot write for (its caller then logs through pino).
 */
export class FixedLines {
  readonly fixed: boolean;
  private readonly destination: Destination | undefined;
  private readonly bindings: string;
  private readonly batching: boolean;

  constructor(readonly logger: Logger) {
    const record = logger as unknown as Record<symbol, unknown>;
    const stream = record[pino.symbols.streamSym] as Destination | undefined;
    const bindings = record[pino.symbols.chindingsSym];
    this.fixed = typeof stream?.write === 'function' && typeof bindings === 'string' && record[pino.symbols.messageKeySym] === 'msg';
    this.destination = this.fixed ? stream : undefined;
    this.bindings = this.fixed ? (bindings as string) : '';
    this.batching = this.fixed && typeof stream!.flushSync === 'function';
  }

  /** Whether the logger writes lines of this level. */
  enabled(level: LineLevel): boolean {
    return this.logger.levelVal <= LEVEL_VALUES[level];
  }

  /** The start of a line: level, time and the logger's bindings (the fields follow, each with its leading comma). */
  head(level: LineLevel): string {
    return `{"level":${LEVEL_VALUES[level]},"time":"${isoTime()}"${this.bindings}`;
  }

  /** Ends the line with its message and writes it. */
  end(text: string, msg: string): void {
    const line = `${text},"msg":${quote(msg)}}\n`;
    if (this.batching) hold(this.destination!, line);
    else this.destination!.write(line);
  }
}
