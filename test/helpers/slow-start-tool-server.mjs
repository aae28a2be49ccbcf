// The test process tool server (stdio-tool-server.mjs), starting START_DELAY_MS milliseconds
// late: for the tests of calls that wait for a server still starting or restarting.
await new Promise((resolve) => setTimeout(resolve, Number(process.env.START_DELAY_MS ?? 0)));
await import('./stdio-tool-server.mjs');
