// Preloaded (node --import) into the gateway and the bare proxy by `bench/run.mjs --heap` only:
// answers the bench's IPC message { bench: 'heap' } with the process's memory, read before and
// after a full garbage collection: what the streams hold (heap used after the GC) apart from the
// garbage not yet collected and the heap V8 keeps reserved (RSS counts both). The GC is the only
// effect on the process, and only when asked; nothing of this runs in production.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { readdirSync } from 'node:fs';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const MB = 1024 * 1024;

function read() {
  const m = process.memoryUsage();
  const spaces = {};
  for (const s of getHeapSpaceStatistics()) spaces[s.space_name] = { usedMb: s.space_used_size / MB, committedMb: s.physical_space_size / MB };
  return { rssMb: m.rss / MB, heapUsedMb: m.heapUsed / MB, heapTotalMb: m.heapTotal / MB, externalMb: m.external / MB, arrayBuffersMb: m.arrayBuffers / MB, spaces };
}

if (process.channel) {
  process.on('message', (msg) => {
    if (msg?.bench !== 'heap') return;
    const before = read();
    gc();
    const after = read();
    let fds = null;
    try {
      fds = readdirSync('/proc/self/fd').length;
    } catch {
      // not Linux
    }
    process.send?.({ bench: 'heap', id: msg.id, before, after, fds });
  });
  // A 'message' listener holds the channel open; the process still exits as it would without it.
  process.channel.unref();
}
