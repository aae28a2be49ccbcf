/** How often the parent process is looked for. */
const INTERVAL_MS = 500;

/**
 * Calls `gone` once when this process's parent exits (it is then re-parented: process.ppid
 * changes). Catches `npm start` killed without forwarding a signal. Never keeps the process alive.
 */
export function watchParent(gone: () => void): void {
  const parent = process.ppid;
  if (parent <= 1) return; // started by init or a container runtime: nothing to watch
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      gone();
    }
  }, INTERVAL_MS);
  timer.unref();
}
