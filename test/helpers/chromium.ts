/**
 * Debian's chromium package (.ci/run installs it when it is missing; CHROMIUM_PATH overrides it):
 * no browser is ever downloaded. The flags keep it headless and off the network, which this
 * machine's closed network refuses anyway.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
