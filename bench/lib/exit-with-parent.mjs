// Preloaded into the gateway child (node --import): when the bench process goes away (its IPC
// channel closes), the gateway gets SIGTERM and drains as it would in production. Does nothing else.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
