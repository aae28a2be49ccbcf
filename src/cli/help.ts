import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_DIR } from '../kernel/paths.js';

/** The package's name and version (from its package.json). */
export function packageInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(ROOT_DIR, 'package.json'), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export function helpText(): string {
  const { name, version } = packageInfo();
  return `${name} ${version}: an AI gateway (OpenAI-shaped model routes and an MCP endpoint) run by declarative pipelines.

Usage: pipeline-gateway [--config <path>] [--check | --print-config | --help | --version]

Options:
  -c, --config <path>  The config file, YAML or JSON (default: $GATEWAY_CONFIG, else ./gateway.yaml,
                       else the gateway.yaml the package ships).
      --check          Validate the config and compile the pipelines; print "ok" or the problems
                       (one line each) and exit 0 or 1. Listens on nothing and starts nothing.
      --print-config   Print the effective config as YAML (environment expanded, overrides and
                       defaults applied, every secret shown as [REDACTED]) and exit 0.
  -h, --help           Print this help and exit.
  -v, --version        Print the version and exit.

Environment: GATEWAY_CONFIG, GATEWAY_PORT, GATEWAY_AUTH_TYPE, GATEWAY_AUTH_ENABLED,
GATEWAY_ADMIN_TOKEN, GATEWAY_DATA_DIR; any config string may use \${NAME} or \${NAME:-default}.

Signals: SIGTERM or SIGINT drain in-flight requests and exit 0; SIGHUP reloads the config file
and the pipelines (the running config stays when the new one has a problem).

Exit codes: 0 success, 1 invalid config or start-up failure, 2 bad command line.
`;
}
