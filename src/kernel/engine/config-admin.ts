import { defineService } from './services.js';

/** What a reload from the config file came to. */
export type ReloadOutcome =
  /** This process reloaded (the new config serves from now on). */
  | { status: 'reloaded'; file: string }
  /** The file checked out and the cluster's primary was asked to reload every worker (as SIGHUP does). */
  | { status: 'requested'; file: string }
  /** The file has problems: the running config stays. */
  | { status: 'failed'; file: string; problems: string[] };

/**
 * The config operations of the admin API, given by the process that runs the gateway: checking a
 * config text as start-up would (the same loader and pipeline compiler), and reloading the file
 * the gateway started with, as SIGHUP does (absent when it was not started from a file).
 */
export interface ConfigAdmin {
  /** Every problem of `text` (YAML or JSON) as start-up would find them; empty: valid. */
  validate(text: string, source: string): Promise<string[]>;
  reload?: () => Promise<ReloadOutcome>;
}

export const CONFIG_ADMIN = defineService<ConfigAdmin>('config-admin');
