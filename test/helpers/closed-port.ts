import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * A port on 127.0.0.1 where nothing listens, and where nothing in this test run will start listening.
 *
 * A port taken with `listen(0)` and closed again is free only for a moment: the kernel hands ports
 * out of its ephemeral range, so the next server of any test (the gateway under test included) may
 * get the same one, and the "closed" upstream then answers. So the port is picked below that range,
 * where `listen(0)` never lands, and a connection to it is tried first to see that it is refused.
 */
export async function closedPort(): Promise<number> {
  const low = ephemeralRangeStart();
  const floor = Math.min(10_000, low - 1_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = floor + Math.floor(Math.random() * (low - floor));
    if (await refused(port)) return port;
  }
  throw new Error(`no closed port found between ${floor} and ${low}`);
}

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && low > 2_000) return low;
  } catch {
    // Not Linux: the IANA range starts at 49152, and Linux's default at 32768; the lower is safe for both.
  }
  return 32_768;
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}
