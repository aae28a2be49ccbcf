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

/** A test fake served on a free loopback port: `start()` listens, `stop()` closes; subclasses answer in `handle`. */
export abstract class LoopbackFake {
  url = '';
  private server?: LoopbackServer;

  async start(): Promise<this> {
    this.server = await listenOnLoopback((req, res) => void this.handle(req, res));
    this.url = this.server.url;
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }

  protected abstract handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}
