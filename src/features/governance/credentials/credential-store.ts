import { randomBytes } from 'node:crypto';
import type { Migration, SqlStore } from '../../../kernel/store/sql-store.js';

export const CREDENTIAL_MIGRATIONS: Migration[] = [
  {
    id: 'credentials-001-create',
    statements: [
      'CREATE TABLE gateway_vault_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)',
      `CREATE TABLE gateway_credentials (
        name TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        sealed TEXT NOT NULL,
        last4 TEXT NOT NULL,
        description TEXT,
        created_at BIGINT NOT NULL
      )`,
    ],
  },
];

/** A held credential as stored: its fields sealed (AES-256-GCM), never in the clear. */
export interface StoredCredential {
  name: string;
  provider: string;
  /** The JSON of the credential's fields, sealed by SecretBox. */
  sealed: string;
  last4: string;
  description: string | null;
  createdAt: number;
}

interface Row {
  name: string;
  provider: string;
  sealed: string;
  last4: string;
  description: string | null;
  created_at: number | string;
}

const fromRow = (r: Row): StoredCredential => ({
  name: r.name,
  provider: r.provider,
  sealed: r.sealed,
  last4: r.last4,
  description: r.description,
  createdAt: Number(r.created_at),
});

/** Rows of /v1/admin/credentials and the install's scrypt salt, in the durable store shared by every instance. */
export class CredentialStore {
  constructor(private readonly store: SqlStore) {}

  /** The install's salt for passphrase keys: made once, by whichever instance comes first. */
  async salt(): Promise<Buffer> {
    await this.store.execute('INSERT INTO gateway_vault_meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', ['salt', randomBytes(16).toString('hex')]);
    const rows = await this.store.query<{ value: string }>('SELECT value FROM gateway_vault_meta WHERE name = ?', ['salt']);
    return Buffer.from(rows[0]!.value, 'hex');
  }

  async list(): Promise<StoredCredential[]> {
    return (await this.store.query<Row>('SELECT name, provider, sealed, last4, description, created_at FROM gateway_credentials ORDER BY name')).map(fromRow);
  }

  /** False when the name is taken. */
  async insert(c: StoredCredential): Promise<boolean> {
    const changed = await this.store.execute(
      'INSERT INTO gateway_credentials (name, provider, sealed, last4, description, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
      [c.name, c.provider, c.sealed, c.last4, c.description, c.createdAt],
    );
    return changed === 1;
  }

  /** Replaces the sealed value (re-encryption under a new key). */
  async reseal(name: string, sealed: string): Promise<void> {
    await this.store.execute('UPDATE gateway_credentials SET sealed = ? WHERE name = ?', [sealed, name]);
  }

  async delete(name: string): Promise<boolean> {
    return (await this.store.execute('DELETE FROM gateway_credentials WHERE name = ?', [name])) === 1;
  }
}
