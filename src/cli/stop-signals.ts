/**
 * The process's SIGTERM and SIGINT, held from main's first line: a signal that comes while the
 * gateway still loads is kept and handed to whatever takes it (serve, the cluster primary), so a
 * signal at any moment of start-up drains and exits 0 instead of killing the process.
 */
let held: NodeJS.Signals | undefined;
let taker: ((signal: NodeJS.Signals) => void) | undefined;
let holding = false;

const onSignal = (signal: NodeJS.Signals): void => {
  if (taker) taker(signal);
  else held ??= signal;
};

/** Starts holding SIGTERM and SIGINT (idempotent). */
export function holdStopSignals(): void {
  if (holding) return;
  holding = true;
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Hands every SIGTERM/SIGINT to `stop`: one held already at once, the later ones as they come. */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  holdStopSignals();
  taker = stop;
  const signal = held;
  held = undefined;
  if (signal) stop(signal);
}

/** For a command that does not serve: stops holding, and a signal held meanwhile takes its default effect now. */
export function releaseStopSignals(): void {
  if (!holding) return;
  holding = false;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  if (held) process.kill(process.pid, held);
}
