import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server of a test fake on a free loopback port. */
export interface LoopbackServer {
  server: Server;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Ends its connections and closes it. */
  close(): Promise<void>;
}

/** Starts `handle` on a free loopback port. */
export async function listenOnLoopback(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<LoopbackServer> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
