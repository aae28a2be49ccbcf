import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface GroupStdioParameters {
  command: string;
  args?: string[];
  /** Added to the safe default environment (PATH, HOME, ...). */
  env?: Record<string, string>;
  cwd?: string;
}

/** How long close() waits for the process to end after its stdin closed, and again after SIGTERM. */
const GRACE_MS = 2000;

/** Process groups of tool servers still running (their leaders' pids). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Signals a process group, quietly (it may be gone already). */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // No such group any more.
  }
}

/**
 * However the gateway leaves (process.exit after a failed start, an uncaught exception, the end of
 * its drain), no tool server outlives it: every process group still running gets SIGTERM. (A
 * gateway killed outright closes their stdin, which a stdio server watches.)
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGTERM');
    liveGroups.clear();
  });
}

/**
 * The stdio client transport of the MCP SDK, but the tool server runs as the leader of its own
 * process group (`detached`, still a child the gateway waits for): a SIGTERM to the gateway's
 * process group (a supervisor, Ctrl-C in a terminal) reaches only the gateway, which drains its
 * in-flight tool calls and then stops the servers itself: stdin closed, then SIGTERM and SIGKILL
 * to the server's whole group. Whatever the group still holds when its leader ends goes too.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly readBuffer = new ReadBuffer();
  /** The child's stderr, available before start() (no early line is lost). */
  readonly stderr = new PassThrough();

  constructor(private readonly params: GroupStdioParameters) {}

  /** The server's pid (and its process group's id) while it runs. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('GroupStdioTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args ?? [], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        cwd: this.params.cwd,
        detached: true,
      });
      this.child = child;
      let pgid: number | undefined;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        pgid = child.pid;
        if (pgid !== undefined) {
          installExitHook();
          liveGroups.add(pgid);
        }
        resolve();
      });
      child.on('exit', () => {
        if (pgid === undefined) return;
        // What the server started and left behind (its group outlives it) ends with it.
        liveGroups.delete(pgid);
        signalGroup(pgid, 'SIGTERM');
      });
      child.on('close', () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => {
        try {
          this.readBuffer.append(chunk);
          this.processReadBuffer();
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close().catch(() => undefined);
        }
      });
      child.stdout!.on('error', (error) => this.onerror?.(error));
      // A stream error (the pipe breaking as the child dies) must not become an uncaught one.
      child.stderr!.on('error', () => undefined);
      child.stderr!.pipe(this.stderr);
    });
  }

  private processReadBuffer(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      const wait = () => Promise.race([closed, new Promise<void>((r) => setTimeout(r, GRACE_MS).unref())]);
      const running = () => child.exitCode === null && child.signalCode === null;
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      await wait();
      if (running() && child.pid !== undefined) {
        signalGroup(child.pid, 'SIGTERM');
        await wait();
      }
      if (running() && child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    }
    this.readBuffer.clear();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) {
        reject(new Error('Not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }
}
