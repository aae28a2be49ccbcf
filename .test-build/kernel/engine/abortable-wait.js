/** Waits `ms`, or less when `signal` aborts. Never throws. (Backoff waits: retries, batch lines.) */
export function abortableWait(ms, signal) {
    return new Promise((resolve) => {
        if (signal.aborted || ms <= 0)
            return resolve();
        const done = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener('abort', done, { once: true });
    });
}
//# sourceMappingURL=abortable-wait.js.map