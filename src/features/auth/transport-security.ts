import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { GatewayConfig } from '../../generated/gateway.js';
import { forbidden, type GatewayError } from '../../contract/errors/gateway-error.js';

/** Local addresses already asked about (a server's own addresses: a handful), so that each request does not test them again. */
const loopbackSeen = new Map<string, boolean>();

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  let loopback = loopbackSeen.get(address);
  if (loopback === undefined) {
    const a = address.startsWith('::ffff:') ? address.slice(7) : address;
    loopback = isIP(a) === 4 ? a.startsWith('127.') : a === '::1';
    if (loopbackSeen.size >= 256) loopbackSeen.clear();
    loopbackSeen.set(address, loopback);
  }
  return loopback;
}

/**
 * Whether a credential may be read from this request: always over TLS, and over plain HTTP
 * only on a loopback address (the address the connection came in on) unless
 * server.allowInsecureHttp is set (a gateway behind a TLS-terminating proxy).
 */
export function credentialTransportAllowed(input: { encrypted: boolean; localAddress: string | undefined }, config: GatewayConfig): boolean {
  if (input.encrypted) return true;
  if (config.server?.allowInsecureHttp === true) return true;
  return isLoopbackAddress(input.localAddress);
}

/**
 * Sockets of requests the gateway makes to itself (a batch line it runs): no connection, and
 * the credential they carry came in with the batch, over a transport already checked then.
 */
const ownRequestSockets = new WeakSet<object>();

/** Marks `socket` as one of the gateway's own requests (see ownRequestSockets). */
export function markOwnRequestSocket(socket: object): void {
  ownRequestSockets.add(socket);
}

/** The 403 for a credential sent over plain HTTP on a non-loopback address; undefined when allowed. */
export function insecureTransportError(req: IncomingMessage, config: GatewayConfig): GatewayError | undefined {
  const socket = req.socket as TLSSocket;
  if (credentialTransportAllowed({ encrypted: socket.encrypted === true, localAddress: socket.localAddress }, config)) return undefined;
  // (asked only of what the transport itself would refuse: no lookup for the requests that come in on a connection)
  if (ownRequestSockets.has(socket)) return undefined;
  return forbidden('Credentials are refused over plain HTTP on a non-loopback address: use HTTPS (server.ssl), or set server.allowInsecureHttp behind a TLS-terminating proxy.');
}
