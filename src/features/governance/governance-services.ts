import { defineService } from '../../kernel/engine/services.js';
import type { Catalogue } from './catalogue/catalogue.js';
import type { CredentialVault } from './credentials/credential-vault.js';
import type { PriceResolver } from './prices/price-resolver.js';
import type { PriceTable } from './prices/price-table.js';

/** The provider credentials the gateway holds (credentials.<name> and /v1/admin/credentials). */
export const CREDENTIAL_VAULT = defineService<CredentialVault>('credential-vault');
/** The model catalogue (models.<name>). */
export const CATALOGUE = defineService<Catalogue>('catalogue');
/** Prices of (catalogue model, provider, model): the catalogue's override, else the shipped table. */
export const PRICE_RESOLVER = defineService<PriceResolver>('price-resolver');
/** The shipped price table (prices/*.yaml), read once at start-up. */
export const PRICE_TABLE = defineService<PriceTable>('price-table');
