// Loaded with `node --import` before the gateway's main module: says (once, on stderr) that Node
// runs JavaScript now, the earliest moment a process can handle a signal. Changes nothing else.
if (!process.env.NODE_UNIQUE_ID) process.stderr.write('probe: javascript running\n');
