import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files made for one test run (paths), and their contents. */
export interface TestCerts {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** Signed by the CA: CN "Grace Hopper", OU "compilers", email SAN grace@example.com. */
  clientCert: string;
  clientKey: string;
  /** Signed by another CA the gateway does not trust. */
  foreignCert: string;
  foreignKey: string;
  read(path: string): Buffer;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function ca(dir: string, name: string, cn: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${cn}`,
  ]);
}

function leaf(dir: string, name: string, signer: string, subject: string, ext: string): void {
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${signer}.crt`,
    '-CAkey',
    `${signer}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

/** Makes a CA, a server certificate for 127.0.0.1/localhost, a good and a foreign client certificate (openssl CLI). */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'gw-certs-'));
  ca(dir, 'ca', 'Gateway Test CA');
  ca(dir, 'other-ca', 'Some Other CA');
  leaf(dir, 'server', 'ca', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  leaf(dir, 'client', 'ca', '/CN=Grace Hopper/OU=compilers/O=Navy', 'subjectAltName=email:grace@example.com\nextendedKeyUsage=clientAuth\n');
  leaf(dir, 'foreign', 'other-ca', '/CN=Mallory/OU=intruders', 'subjectAltName=email:mallory@example.com\nextendedKeyUsage=clientAuth\n');
  const p = (f: string) => join(dir, f);
  return {
    dir,
    caCert: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
    foreignCert: p('foreign.crt'),
    foreignKey: p('foreign.key'),
    read: (path: string) => readFileSync(path),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
