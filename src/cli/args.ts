import { parseArgs } from 'node:util';

/** What the command line asks for. */
export interface CommandLine {
  action: 'serve' | 'check' | 'print-config' | 'help' | 'version';
  /** --config <path>, when given. */
  config?: string;
}

/** A command line the gateway does not understand (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Parses argv (without node and the script); unknown flags, stray arguments and clashing actions are UsageErrors. */
export function parseCommandLine(argv: string[]): CommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: 'string', short: 'c' },
        check: { type: 'boolean' },
        'print-config': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (err) {
    // Node's messages name the flag ("Unknown option '--port'"); the hint about --help is added by the caller.
    throw new UsageError((err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, ''));
  }
  if (values.config === '') throw new UsageError("Option '--config <path>' needs a path");
  const actions = (['help', 'version', 'check', 'print-config'] as const).filter((a) => values[a] === true);
  if (actions.length > 1 && !actions.includes('help')) throw new UsageError(`Options ${actions.map((a) => `'--${a}'`).join(' and ')} cannot be combined`);
  const action = actions.includes('help') ? 'help' : (actions[0] ?? 'serve');
  return { action, config: values.config as string | undefined };
}
