import type { Capability } from '../../kernel/capability.js';
import { ConfigError } from '../../kernel/config/load-config.js';
import { registerSecrets } from '../../kernel/errors/redact.js';
import { KEY_SLOT_MIGRATIONS } from './keys/sql-parallel-slots.js';
import { getStore } from '../../kernel/store/store-capability.js';
import { SEALER } from '../../kernel/store/sealer.js';
import { PROVIDERS, PlanError, HELD_CREDENTIALS, planEnvironment } from '../models/index.js';
import { Catalogue } from './catalogue/catalogue.js';
import { teamModels } from './catalogue/model-listing.js';
import { API_TEAMS } from './tenants/tenant-services.js';
import type { ApiTeams } from './tenants/api-teams.js';
import catalogueModels from './catalogue/catalogue-models-stage.js';
import catalogueModel from './catalogue/catalogue-model-stage.js';
import adminModels from './catalogue/admin-models-stage.js';
import { credentialProblems, providerFields } from './credentials/credential-fields.js';
import credentialOperations from './credentials/credential-operations.js';
import { CREDENTIAL_MIGRATIONS, CredentialStore } from './credentials/credential-store.js';
import { CredentialVault, VaultError } from './credentials/credential-vault.js';
import { deriveKey, SecretBox } from './credentials/secret-box.js';
import { CATALOGUE, CREDENTIAL_VAULT, PRICE_RESOLVER, PRICE_TABLE } from './governance-services.js';
import keyLimits from './keys/key-limits-stage.js';
import { PriceResolver } from './prices/price-resolver.js';
import { PriceTable } from './prices/price-table.js';
import tokenGovernance from './admin/token-governance.js';
import adminResources from './admin/admin-resources.js';

/**
 * Keys, models and money (contract section 8), the parts of held credentials and the catalogue:
 * the credential vault (config credentials and the sealed ones of /v1/admin/credentials, read
 * and re-sealed under the current key at start-up), the model catalogue compiled against it,
 * the price resolver, and their stages (credential-operations, catalogue-models, catalogue-model, key-limits).
 */
export const governanceCapability: Capability = {
  name: 'governance',
  setup(services) {
    services.stages.register(credentialOperations);
    services.stages.register(tokenGovernance);
    services.stages.register(adminResources);
    services.stages.register(catalogueModels);
    services.stages.register(catalogueModel);
    services.stages.register(adminModels);
    services.stages.register(keyLimits);
  },
  async prepare(services) {
    const { config } = services;
    const store = getStore(services);
    await store.migrate(CREDENTIAL_MIGRATIONS);
    // maxParallel slots live here when there is no Redis (key-limits stage).
    await store.migrate(KEY_SLOT_MIGRATIONS);
    const credentialStore = new CredentialStore(store);
    const secrets = config.secrets;
    let box: SecretBox | undefined;
    if (secrets?.key) {
      registerSecrets([secrets.key, ...(secrets.previousKeys ?? [])]);
      const salt = await credentialStore.salt();
      box = new SecretBox([secrets.key, ...(secrets.previousKeys ?? [])].map((k) => deriveKey(k, salt)));
      const sealing = box;
      // Other features' values at rest (each user's tool-server tokens) are sealed under the same keys.
      services.provide(SEALER, { seal: (plain) => sealing.encrypt(plain), open: (sealed) => sealing.decrypt(sealed)?.plain });
    }
    const vault = new CredentialVault(credentialStore, box, services.logger);
    const providers = services.require(PROVIDERS);
    const problems: string[] = [];
    for (const [name, raw] of Object.entries(config.credentials ?? {})) {
      const fields = providerFields(raw as Record<string, unknown>);
      const found = credentialProblems(raw.provider, fields, providers);
      for (const line of found) problems.push(`credentials.${name}.${line}`);
      if (!found.length) vault.addFromConfig(name, raw.provider, fields, raw.description);
    }
    if (problems.length) throw new ConfigError(problems, 'credentials');
    try {
      const { resealed } = await vault.load();
      if (resealed) services.logger.info({ resealed }, 'held credentials sealed again under the current secrets.key');
    } catch (err) {
      if (err instanceof VaultError) throw new ConfigError([err.message], 'secrets');
      throw err;
    }
    services.provide(CREDENTIAL_VAULT, vault);
    services.provide(HELD_CREDENTIALS, vault);

    let catalogue: Catalogue;
    try {
      catalogue = new Catalogue(config.models ?? {}, planEnvironment(services));
    } catch (err) {
      if (err instanceof PlanError) throw new ConfigError(err.problems, 'models');
      throw err;
    }
    const built = catalogue;
    // The admin API's teams (the tenants capability), found on first use.
    let apiTeams: ApiTeams | undefined;
    vault.setUsage(catalogue.credentialUsage(), {
      reachesWithCredential: (credential, model, key, team) => built.reachesWithCredential(credential, model, key, team),
      teamModels: (key) => teamModels(config, key, (apiTeams ??= services.get(API_TEAMS))),
    });
    services.provide(CATALOGUE, catalogue);

    const table = services.provide(PRICE_TABLE, PriceTable.read().table);
    const priceProblems: string[] = [];
    const overrides = Object.entries(config.models ?? {}).flatMap(([name, m]) => (m.price ? [[name, m.price] as [string, typeof m.price]] : []));
    services.provide(PRICE_RESOLVER, new PriceResolver(table, overrides, priceProblems));
    if (priceProblems.length) throw new ConfigError(priceProblems, 'models');
  },
  start(services) {
    services.get(CREDENTIAL_VAULT)?.watch();
  },
  drain(services) {
    services.get(CREDENTIAL_VAULT)?.close();
  },
};
