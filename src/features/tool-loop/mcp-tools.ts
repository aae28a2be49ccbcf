/**
 * The `mcp` tools of a request that name a tool server of the gateway: which server, which of its
 * tools (allowed_tools), which calls wait for the caller's approval (require_approval, OpenAI's
 * default `always`), and the function name each tool gets before the model.
 */
import { badRequest } from '../../contract/errors/gateway-error.js';
import type { ListedTool } from './gateway-tools.js';

type Json = Record<string, unknown>;

/** An allowed_tools or require_approval filter (each field checked where read). */
interface ToolFilter {
  tool_names?: unknown;
  read_only?: unknown;
}

/** One `mcp` tool of a request that the gateway runs. */
export interface GatewayMcpTool {
  /** Where it stands in the request's tools. */
  index: number;
  label: string;
  /** Tool names it allows (every tool when absent). */
  allowed?: string[];
  /** Only tools annotated read-only (allowed_tools.read_only). */
  readOnly?: boolean;
  approval: Json | string;
  /** The caller's name for the server (Anthropic's mcp_servers[].name), when it differs from the label. */
  name?: string;
}

/** A tool offered to the model as a function: which server and tool it runs. */
export interface OfferedTool {
  fn: string;
  label: string;
  tool: ListedTool;
}

/** The path of the gateway's own endpoint for one tool server. */
function ownPath(label: string): string {
  return `/mcp/${label}`;
}

/** Whether `url` is this gateway's /mcp/<label> (any host: the gateway cannot tell every name it is reached by). */
function namesGatewayServer(url: string, label: string, base: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return false;
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return new URL(base).host === parsed.host && path.endsWith(ownPath(label));
}

export interface McpToolsOfRequest {
  /** The mcp tools the gateway runs. */
  gateway: GatewayMcpTool[];
  /** Labels of mcp tools with an outside server_url (only a provider that runs them itself may take them). */
  outside: string[];
}

/**
 * Reads the request's tools: an `mcp` tool whose server_url is absent or this gateway's
 * /mcp/<server_label> must name a tool server of the config (else a 400 naming it).
 */
export function mcpToolsOf(tools: unknown, where: string, isServer: (name: string) => boolean, base: string): McpToolsOfRequest {
  const out: McpToolsOfRequest = { gateway: [], outside: [] };
  if (!Array.isArray(tools)) return out;
  tools.forEach((tool: Json, index) => {
    if (tool?.type !== 'mcp') return;
    const at = `${where}[${index}]`;
    const label = tool.server_label;
    if (typeof label !== 'string' || label === '') throw badRequest(`${at}.server_label is required for an mcp tool.`, `${at}.server_label`);
    const url = tool.server_url;
    if (url !== undefined && url !== null && typeof url !== 'string') throw badRequest(`${at}.server_url must be a string.`, `${at}.server_url`);
    if (typeof url === 'string' && url !== '' && !namesGatewayServer(url, label, base)) {
      out.outside.push(label);
      return;
    }
    if (tool.connector_id !== undefined) throw badRequest(`${at}: connectors (connector_id) need a provider that runs them itself.`, `${at}.connector_id`);
    if (!isServer(label)) throw badRequest(`${at}: no tool server named "${label}" behind this gateway (server_label names one of its mcpServers).`, `${at}.server_label`);
    // checked just below: a string or an object, else a 400
    const entry: GatewayMcpTool = { index, label, approval: (tool.require_approval ?? 'always') as Json | string };
    const allowed = tool.allowed_tools;
    if (Array.isArray(allowed)) entry.allowed = allowed.map(String);
    else if (allowed && typeof allowed === 'object') {
      const filter = allowed as ToolFilter;
      if (Array.isArray(filter.tool_names)) entry.allowed = filter.tool_names.map(String);
      if (filter.read_only === true) entry.readOnly = true;
    } else if (allowed !== undefined && allowed !== null) throw badRequest(`${at}.allowed_tools must be a list of tool names or a filter.`, `${at}.allowed_tools`);
    if (typeof entry.approval !== 'string' && (typeof entry.approval !== 'object' || entry.approval === null))
      throw badRequest(`${at}.require_approval must be "always", "never" or a filter.`, `${at}.require_approval`);
    if (typeof entry.approval === 'string' && entry.approval !== 'always' && entry.approval !== 'never')
      throw badRequest(`${at}.require_approval must be "always", "never" or a filter.`, `${at}.require_approval`);
    out.gateway.push(entry);
  });
  return out;
}

function isReadOnly(tool: ListedTool): boolean {
  return tool.annotations?.readOnlyHint === true;
}

/** Whether the filter ({tool_names, read_only}) matches the tool. */
function filterMatches(value: unknown, tool: ListedTool): boolean {
  if (!value || typeof value !== 'object') return false;
  const filter = value as ToolFilter;
  const names = Array.isArray(filter.tool_names) ? filter.tool_names.map(String) : undefined;
  if (names && !names.includes(tool.name)) return false;
  if (filter.read_only === true && !isReadOnly(tool)) return false;
  return names !== undefined || filter.read_only === true;
}

/** The tools of a server the request allows. */
export function allowedTools(entry: GatewayMcpTool, listed: ListedTool[]): ListedTool[] {
  return listed.filter((tool) => (!entry.allowed || entry.allowed.includes(tool.name)) && (!entry.readOnly || isReadOnly(tool)));
}

/** Whether a call of `tool` waits for the caller's approval. */
export function needsApproval(entry: GatewayMcpTool, tool: ListedTool): boolean {
  const approval = entry.approval;
  if (approval === 'never') return false;
  if (approval === 'always') return true;
  const rule = approval as Json;
  if (filterMatches(rule.never, tool)) return false;
  if (filterMatches(rule.always, tool)) return true;
  // a filter that names neither: OpenAI's default (approval)
  return rule.never === undefined;
}

/** A function name the model can use (letters, digits, _ and -; at most 64), unique among `taken`. */
export function functionName(label: string, tool: string, taken: Set<string>): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  const base = `${clean(label)}__${clean(tool)}`.slice(0, 64);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 60)}_${n}`;
  taken.add(name);
  return name;
}
