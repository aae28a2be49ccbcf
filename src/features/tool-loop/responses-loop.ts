/**
 * The tool loop of one Responses API request, on any provider: the `mcp` tools that name the
 * gateway's tool servers become function tools; each model turn's calls of them run on the tool
 * server for the caller (or wait for the caller's approval), their results go back to the model,
 * until it answers, a limit is reached, or the caller goes away. The answer carries OpenAI's
 * items: mcp_list_tools, mcp_call (arguments, output, error), mcp_approval_request.
 */
import { randomBytes } from 'node:crypto';
import { newResponseId, responseObject } from '../../contract/openai/responses-shapes.js';
import type { CallerTools, ListedTool } from './gateway-tools.js';
import { allowedTools, functionName, needsApproval, type GatewayMcpTool, type OfferedTool } from './mcp-tools.js';
import type { LoopEvents } from './loop-events.js';
import type { RoundSink } from './round-stream.js';

type Json = Record<string, unknown>;

/** A Responses answer's usage as the loop reads it (a model's: each field checked where read). */
export interface LoopUsage {
  input_tokens?: unknown;
  output_tokens?: unknown;
  total_tokens?: unknown;
  input_tokens_details?: { cached_tokens?: unknown } | null;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
  [field: string]: unknown;
}

/** The usage of the loop's model calls, summed. */
type UsageSum = {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: { cached_tokens: number };
  output_tokens_details?: { reasoning_tokens: number };
};

/** The bounds of one loop. */
export interface LoopLimits {
  maxIterations: number;
  maxToolCalls: number;
  /** When the loop must end (epoch ms). */
  deadline: number;
  parallelCalls: number;
}

export interface ResponsesLoopInput {
  /** The Responses request as the model stages get it (a kept conversation already in input). */
  body: Json;
  /** The request as the caller sent it (echoed in the answer). */
  original: Json;
  entries: GatewayMcpTool[];
  /** The tool servers, for the caller. */
  tools: CallerTools;
  limits: LoopLimits;
  /** Aborted when the caller goes away. */
  callerSignal: AbortSignal;
  /** Whether the usage of the loop's model calls so far used up the caller's budget (no further model call then). */
  budgetSpent?: (usage: Json | null) => boolean;
  /**
   * One model call: the Responses answer, or a thrown error (the model call failed). With
   * `sink` (a streamed loop), the call is streamed and its text goes to the sink as it comes.
   */
  callModel(body: Json, sink?: RoundSink): Promise<Json>;
  /** Whether the caller reads the loop as a stream (each model call is streamed then). */
  streamed?: boolean;
  events: LoopEvents;
}

/** The loop was stopped because the caller went away. */
export class CallerGone extends Error {
  constructor() {
    super('The caller went away.');
    this.name = 'CallerGone';
  }
}

function itemId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

/** A message or reasoning item of a streamed model call, shown to the caller as it came. */
interface StreamedItem {
  index: number;
  item: Json;
}

/** The item a streamed model call's text goes into (its text grows in content[0]). */
type OpenItem = Json & { type: 'message' | 'reasoning'; content: [Json & { text: string }]; status?: string; encrypted_content?: string };

/** The loop's side of a streamed model call: each item gets its place in the output when it starts. */
class RoundItems implements RoundSink {
  readonly items: StreamedItem[] = [];
  private open: { index: number; item: OpenItem } | undefined;

  constructor(
    private readonly emit: (item: Json) => number,
    private readonly events: () => LoopEvents,
  ) {}

  start(kind: 'message' | 'reasoning'): void {
    this.end();
    const item: OpenItem =
      kind === 'message'
        ? { id: itemId('msg'), type: 'message', role: 'assistant', status: 'in_progress', content: [{ type: 'output_text', text: '', annotations: [] }] }
        : { id: itemId('rs'), type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: '' }] };
    this.open = { index: this.emit(item), item };
    this.items.push(this.open);
    this.events().streamStarted(this.open.index, item);
  }

  delta(text: string): void {
    const open = this.open;
    if (!open) return;
    open.item.content[0].text += text;
    this.events().streamDelta(open.index, open.item, text);
  }

  end(signature?: string): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    if (open.item.type === 'message' && open.item.status === 'in_progress') open.item.status = 'completed';
    else if (signature) open.item.encrypted_content = signature;
    this.events().streamEnded(open.index, open.item);
  }

  /** Whether nothing of this call was shown yet (no item started). */
  get untouched(): boolean {
    return this.items.length === 0 && this.open === undefined;
  }

  /** The call was cut: the open item ends where it was (a message incomplete). */
  cut(): void {
    if (this.open?.item.type === 'message') this.open.item.status = 'incomplete';
    this.end();
  }

  whole(shown: Json): void {
    this.end();
    const item = { ...shown, id: itemId('rs') };
    const entry = { index: this.emit(item), item };
    this.items.push(entry);
    this.events().item(entry.index, item);
  }

  /** The streamed item an answer's message or reasoning item was (the first of its type not yet matched). */
  take(type: string): StreamedItem | undefined {
    const at = this.items.findIndex((entry) => entry.item.type === type);
    return at < 0 ? undefined : this.items.splice(at, 1)[0];
  }
}

const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'total_tokens'] as const;

/** Usage of every model call of the loop, summed (the meter bills the answer's usage). */
function addUsage(total: UsageSum | null, answered: unknown): UsageSum | null {
  if (!answered || typeof answered !== 'object') return total;
  const usage = answered as LoopUsage;
  const sum: UsageSum = total ? structuredClone(total) : { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  for (const field of USAGE_FIELDS) sum[field] = (sum[field] ?? 0) + (Number(usage[field]) || 0);
  const cached = Number(usage.input_tokens_details?.cached_tokens) || 0;
  const reasoning = Number(usage.output_tokens_details?.reasoning_tokens) || 0;
  sum.input_tokens_details = { ...(sum.input_tokens_details ?? {}), cached_tokens: (sum.input_tokens_details?.cached_tokens ?? 0) + cached };
  sum.output_tokens_details = { ...(sum.output_tokens_details ?? {}), reasoning_tokens: (sum.output_tokens_details?.reasoning_tokens ?? 0) + reasoning };
  return sum;
}

function parseArguments(text: string): Json | undefined {
  try {
    const value = JSON.parse(text === '' ? '{}' : text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A kept item as input again (its status dropped). */
function asInput(item: Json): Json {
  const { status: _status, ...rest } = item;
  return rest;
}

/** Runs `run` on each of `items`, at most `limit` at once, in order of the results. */
async function bounded<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await run(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

interface PendingCall {
  /** The mcp_call item being filled. */
  item: Json;
  offered: OfferedTool;
  args: Json | undefined;
  /** The function_call_output the model reads (filled when the call ends). */
  output: Json;
}

export class ResponsesLoop {
  private readonly output: Json[] = [];
  private readonly offered = new Map<string, OfferedTool>();
  /** Function names by "label\u0000tool", for calls kept from earlier turns. */
  private readonly names = new Map<string, string>();
  private usage: UsageSum | null = null;
  private toolCalls = 0;
  private lastAnswer: Json | undefined;
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  /** What the rounds work on, once the tools are listed: the conversation so far and the tools offered. */
  private rounds: { conversation: Json[]; tools: Json[] } | undefined;
  /** The round whose model call failed (not streamed, the loop's state intact): resume() makes that call again. */
  private failedRound: number | undefined;

  constructor(private readonly input: ResponsesLoopInput) {
    this.arm();
    const gone = () => this.stop.abort(new CallerGone());
    if (input.callerSignal.aborted) gone();
    else input.callerSignal.addEventListener('abort', gone, { once: true });
  }

  /** The loop's time limit (limits.deadline), from now. */
  private arm(): void {
    clearTimeout(this.timer);
    const wait = Math.max(0, this.input.limits.deadline - Date.now());
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.stop.abort(new Error('The tool loop reached its time limit.'));
    }, wait);
    this.timer.unref?.();
  }

  /** Runs the loop to its end: the response the caller gets (thrown: the model call's failure, or CallerGone). */
  async run(): Promise<Json> {
    try {
      return await this.loop();
    } finally {
      clearTimeout(this.timer);
    }
  }

  /**
   * Whether the loop ended by a failed model call that can be made again elsewhere: its state
   * (the rounds before, their tool results) is as it was before that call, and none of that
   * call's answer was shown (a streamed call that failed before its first item).
   */
  get resumable(): boolean {
    return this.failedRound !== undefined;
  }

  /**
   * Goes on from the model call that failed (made again, by the next target of a fallback), with
   * the rounds before it and their tool results kept: no tool runs twice. `limits.deadline` may
   * have changed (the next target's own deadline).
   */
  async resume(): Promise<Json> {
    const round = this.failedRound;
    if (round === undefined || !this.rounds) throw new Error('The tool loop has no failed model call to make again.');
    this.failedRound = undefined;
    this.arm();
    try {
      return await this.runRounds(round);
    } finally {
      clearTimeout(this.timer);
    }
  }

  /** Aborted when the loop stops: its time limit, or the caller went away. */
  get stopped(): AbortSignal {
    return this.stop.signal;
  }

  private checkCaller(): void {
    if (this.input.callerSignal.aborted) throw new CallerGone();
  }

  private emitItem(item: Json): number {
    const index = this.output.length;
    this.output.push(item);
    return index;
  }

  private async loop(): Promise<Json> {
    const { body, entries } = this.input;
    const history = Array.isArray(body.input) ? (body.input as Json[]) : typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : [];
    const listedBefore = new Set(history.filter((i) => i?.type === 'mcp_list_tools').map((i) => String(i.server_label)));
    await this.listTools(entries, listedBefore);
    this.checkCaller();
    const { conversation, approved } = this.conversationOf(history);
    if (approved.length) {
      const stopped = await this.runCalls(approved);
      if (stopped) return this.finish(stopped);
    }
    const otherTools = (Array.isArray(body.tools) ? body.tools : []).filter((_: unknown, i: number) => !entries.some((e) => e.index === i));
    const functionTools = [...this.offered.values()].map((o) => ({
      type: 'function',
      name: o.fn,
      description: o.tool.description ?? `${o.tool.name} (tool server ${o.label})`,
      parameters: o.tool.inputSchema,
      strict: false,
    }));
    this.rounds = { conversation, tools: [...otherTools, ...functionTools] };
    return this.runRounds(0);
  }

  /** The model turns from round `first` on, each followed by its tool calls, until the model answers or a limit is reached. */
  private async runRounds(first: number): Promise<Json> {
    const { body, entries } = this.input;
    const { conversation, tools } = this.rounds!;
    for (let iteration = first; ; iteration++) {
      this.checkCaller();
      if (this.timedOut || Date.now() >= this.input.limits.deadline) return this.finish('max_time');
      if (iteration >= this.input.limits.maxIterations) return this.finish('max_iterations');
      if (iteration > 0 && this.input.budgetSpent?.(this.usage)) return this.finish('budget_exhausted');
      const streamed = this.input.streamed === true;
      const request: Json = { ...body, input: conversation, tools: [...tools], stream: streamed, store: false };
      const choice = this.toolChoice(body.tool_choice, iteration);
      if (choice === undefined) delete request.tool_choice;
      else request.tool_choice = choice;
      delete request.max_tool_calls;
      if ((request.tools as Json[]).length === 0) delete request.tools;
      let answer: Json;
      const round = streamed
        ? new RoundItems(
            (item) => this.emitItem(item),
            () => this.events(),
          )
        : undefined;
      try {
        answer = await this.input.callModel(request, round);
      } catch (err) {
        // what was shown of a cut answer ends where it was cut
        round?.cut();
        this.checkCaller();
        // the model call was cut by the loop's time limit: the answer so far
        if (this.timedOut || Date.now() >= this.input.limits.deadline) return this.finish('max_time');
        // nothing of this round is kept yet: the same call can be made again (unless a streamed one showed some of its answer)
        if (!round || round.untouched) this.failedRound = iteration;
        throw err;
      }
      this.checkCaller();
      this.lastAnswer = answer;
      this.usage = addUsage(this.usage, answer.usage);
      const items: Json[] = Array.isArray(answer.output) ? answer.output : [];
      const calls: PendingCall[] = [];
      const approvals: Json[] = [];
      let clientCalls = false;
      const made: Json[] = [];
      for (const item of items) {
        const offered = item?.type === 'function_call' ? this.offered.get(String(item.name)) : undefined;
        if (!offered) {
          if (item?.type === 'function_call') clientCalls = true;
          // a message or reasoning item the caller saw as it streamed keeps the place and id it was shown with
          const shown = item?.type === 'message' || item?.type === 'reasoning' ? round?.take(item.type) : undefined;
          if (shown) this.output[shown.index] = { ...item, id: shown.item.id };
          else this.events().item(this.emitItem(item), item);
          conversation.push(asInput(item));
          continue;
        }
        const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
        const entry = entries.find((e) => e.label === offered.label)!;
        if (needsApproval(entry, offered.tool)) {
          const request = { id: itemId('mcpr'), type: 'mcp_approval_request', server_label: offered.label, name: offered.tool.name, arguments: args };
          approvals.push(request);
          continue;
        }
        const call = this.pendingCall(offered, args);
        call.output.call_id = String(item.call_id ?? call.item.id);
        made.push({ ...asInput(item), call_id: call.output.call_id, name: offered.fn, arguments: args });
        calls.push(call);
      }
      // one assistant turn of calls, then their results (a translated provider makes one message of them)
      conversation.push(...made, ...calls.map((c) => c.output));
      if (calls.length === 0 && approvals.length === 0) return this.finish(undefined, answer);
      const stopped = await this.runCalls(calls);
      for (const request of approvals) this.events().item(this.emitItem(request), request);
      if (stopped) return this.finish(stopped);
      // the caller answers what waits for it (approvals, its own functions) with previous_response_id
      if (approvals.length || clientCalls) return this.finish(undefined);
    }
  }

  /**
   * OpenAI's `{"type": "mcp", "server_label", "name"?}` choice of a gateway server: the first model
   * call must call that tool (or one of the server's); later calls choose freely (else the loop would never end).
   */
  private toolChoice(choice: unknown, iteration: number): unknown {
    const c = choice as Json | undefined;
    if (c?.type !== 'mcp' || !this.input.entries.some((e) => e.label === c.server_label)) return choice;
    if (iteration > 0) return 'auto';
    const fns = [...this.offered.values()].filter((o) => o.label === c.server_label && (typeof c.name !== 'string' || o.tool.name === c.name));
    if (fns.length === 1) return { type: 'function', name: fns[0]!.fn };
    return fns.length ? { type: 'allowed_tools', mode: 'required', tools: fns.map((o) => ({ type: 'function', name: o.fn })) } : 'auto';
  }

  private events(): LoopEvents {
    return this.input.events;
  }

  /** Lists each server's tools (an mcp_list_tools item for servers the conversation has not listed yet). */
  private async listTools(entries: GatewayMcpTool[], listedBefore: Set<string>): Promise<void> {
    const taken = new Set<string>();
    const listed = await Promise.all(
      entries.map(async (entry) => {
        const item: Json = { id: itemId('mcpl'), type: 'mcp_list_tools', server_label: entry.label, tools: [] };
        const show = !listedBefore.has(entry.label);
        const index = show ? this.emitItem(item) : -1;
        if (show) this.events().listStarted(index, item);
        let tools: ListedTool[] = [];
        try {
          tools = allowedTools(entry, await this.input.tools.list(entry.label, this.stop.signal));
        } catch (err) {
          item.error = String((err as Error)?.message ?? 'listing the tools failed');
        }
        item.tools = tools.map((t) => ({
          name: t.name,
          description: t.description ?? null,
          input_schema: t.inputSchema,
          annotations: t.annotations ?? null,
        }));
        if (show) this.events().listEnded(index, item, item.error !== undefined);
        return { entry, tools };
      }),
    );
    for (const { entry, tools } of listed) {
      for (const tool of tools) {
        const fn = functionName(entry.label, tool.name, taken);
        this.offered.set(fn, { fn, label: entry.label, tool });
        this.names.set(`${entry.label}\u0000${tool.name}`, fn);
      }
    }
  }

  private nameOf(label: string, tool: string): string {
    return this.names.get(`${label}\u0000${tool}`) ?? `${label}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  }

  private pendingCall(offered: OfferedTool, args: string, approvalRequestId?: string): PendingCall {
    const item: Json = {
      id: itemId('mcp'),
      type: 'mcp_call',
      server_label: offered.label,
      name: offered.tool.name,
      arguments: args,
      output: null,
      error: null,
      status: 'in_progress',
    };
    if (approvalRequestId) item.approval_request_id = approvalRequestId;
    return { item, offered, args: parseArguments(args), output: { type: 'function_call_output', call_id: item.id, output: '' } };
  }

  /**
   * The conversation for the model: earlier turns' mcp items become the function calls and
   * outputs the model made and read; an approved mcp_approval_request becomes a call to run now,
   * a denied one a call the model is told was refused.
   */
  private conversationOf(history: Json[]): { conversation: Json[]; approved: PendingCall[] } {
    const answers = new Map<string, Json>();
    for (const item of history) if (item?.type === 'mcp_approval_response') answers.set(String(item.approval_request_id), item);
    const conversation: Json[] = [];
    const approved: PendingCall[] = [];
    let outputs: Json[] = [];
    const flush = () => {
      conversation.push(...outputs);
      outputs = [];
    };
    for (const item of history) {
      switch (item?.type) {
        case 'mcp_list_tools':
        case 'mcp_approval_response':
          continue;
        case 'mcp_call': {
          const callId = String(item.id);
          conversation.push({ type: 'function_call', call_id: callId, name: this.nameOf(String(item.server_label), String(item.name)), arguments: String(item.arguments ?? '{}') });
          outputs.push({
            type: 'function_call_output',
            call_id: callId,
            output: typeof item.output === 'string' ? item.output : `Error: ${String(item.error ?? 'the call failed')}`,
          });
          continue;
        }
        case 'mcp_approval_request': {
          const answer = answers.get(String(item.id));
          if (!answer) continue; // never answered: the call did not happen
          const callId = String(item.id);
          conversation.push({ type: 'function_call', call_id: callId, name: this.nameOf(String(item.server_label), String(item.name)), arguments: String(item.arguments ?? '{}') });
          const offered = this.offered.get(this.nameOf(String(item.server_label), String(item.name)));
          if (answer.approve === true && offered) {
            const call = this.pendingCall(offered, String(item.arguments ?? '{}'), callId);
            call.output.call_id = callId;
            outputs.push(call.output);
            approved.push(call);
          } else {
            const why =
              answer.approve === true
                ? 'the tool is not available to this caller'
                : `the caller denied it${typeof answer.reason === 'string' && answer.reason ? `: ${answer.reason}` : ''}`;
            outputs.push({ type: 'function_call_output', call_id: callId, output: `Error: the call was not made (${why}).` });
          }
          continue;
        }
        default:
          flush();
          conversation.push(item);
      }
    }
    flush();
    return { conversation, approved };
  }

  /** Runs a turn's calls (at most parallelCalls at once); a limit reached: its reason (the calls past it are not made). */
  private async runCalls(calls: PendingCall[]): Promise<string | undefined> {
    const room = Math.max(0, this.input.limits.maxToolCalls - this.toolCalls);
    const run = calls.slice(0, room);
    this.toolCalls += run.length;
    const events = this.events();
    await bounded(run, this.input.limits.parallelCalls, async (call) => {
      const index = this.emitItem(call.item);
      events.callStarted(index, call.item);
      const outcome = call.args
        ? await this.input.tools.call(call.offered.label, call.offered.tool.name, call.args, this.stop.signal)
        : { text: 'The arguments are not a JSON object.', failed: true };
      if (this.input.callerSignal.aborted) return;
      if (outcome.failed && this.timedOut) outcome.text = `The call of ${call.offered.tool.name} was cancelled: the tool loop reached its time limit.`;
      if (outcome.failed) {
        call.item.error = outcome.text;
        call.item.status = 'failed';
        call.output.output = `Error: ${outcome.text}`;
      } else {
        call.item.output = outcome.text;
        call.item.status = 'completed';
        call.output.output = outcome.text;
      }
      events.callEnded(index, call.item, outcome.failed);
    });
    this.checkCaller();
    if (this.timedOut) return 'max_time';
    if (run.length < calls.length) {
      // the model is told the calls past the limit were not made, should the caller go on
      for (const call of calls.slice(run.length)) call.output.output = 'Error: the call was not made (the tool call limit was reached).';
      return 'max_tool_calls';
    }
    return undefined;
  }

  /** The response of the loop: the answer of the last model turn with every item of the loop. */
  private finish(incompleteReason: string | undefined, answer?: Json): Json {
    const { original } = this.input;
    const last = answer ?? this.lastAnswer;
    const response = responseObject(
      {
        id: newResponseId(),
        createdAt: typeof last?.created_at === 'number' ? last.created_at : Math.floor(Date.now() / 1000),
        model: String(last?.model ?? original.model ?? ''),
        status: incompleteReason ? 'incomplete' : (last?.status ?? 'completed') === 'incomplete' && answer ? 'incomplete' : 'completed',
        incomplete: incompleteReason
          ? { reason: incompleteReason }
          : answer && answer.status === 'incomplete'
            ? ((answer.incomplete_details as Json | null | undefined) ?? null)
            : null,
        output: this.output,
        usage: this.usage,
      },
      original,
    );
    return response;
  }
}
