#!/usr/bin/env node
import { holdStopSignals, releaseStopSignals } from './cli/stop-signals.js';
import { parseCommandLine, UsageError, type CommandLine } from './cli/args.js';
import { helpText, packageInfo } from './cli/help.js';
import { holdYoungGeneration, keepRequestsYoung } from './kernel/memory/startup-heap.js';

// First: a SIGTERM or SIGINT from here on drains (the config and the gateway load after this).
holdStopSignals();

/** The command line: serve (default), --check, --print-config, --help, --version. */
async function main(): Promise<void> {
  let command: CommandLine;
  try {
    command = parseCommandLine(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    releaseStopSignals();
    process.stderr.write(`error: ${err.message}\nRun with --help to see the options.\n`);
    process.exit(2);
  }
  if (command.action !== 'serve') releaseStopSignals();
  const { configPathFrom } = await import('./kernel/config/load-config.js');
  const path = configPathFrom(command.config ? ['--config', command.config] : [], process.env);
  switch (command.action) {
    case 'help':
      process.stdout.write(helpText());
      return;
    case 'version':
      process.stdout.write(`${packageInfo().version}\n`);
      return;
    case 'check': {
      const { checkConfig } = await import('./cli/check.js');
      const problems = await checkConfig(path);
      if (problems.length) {
        for (const line of problems) process.stderr.write(`${line}\n`);
        process.exit(1);
      }
      process.stdout.write('ok\n');
      process.exit(0);
      break;
    }
    case 'print-config': {
      const { loadConfigFile } = await import('./config.js');
      const { problemLines } = await import('./cli/check.js');
      const { printableConfig } = await import('./cli/print-config.js');
      try {
        process.stdout.write(printableConfig(loadConfigFile(path)));
      } catch (err) {
        for (const line of problemLines(err)) process.stderr.write(`${line}\n`);
        process.exit(1);
      }
      return;
    }
    case 'serve': {
      holdYoungGeneration();
      keepRequestsYoung();
      const { run } = await import('./cli/run.js');
      await run(path);
      return;
    }
  }
}

void main();
