// CPU accounting from /proc (Linux): how much CPU each bench process used during a row, and how
// much went to other processes on the machine (their load makes a row's figures noisy).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let hz = 100;
try {
  hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // keep 100
}

function processTicks(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

function machineTicks() {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { busy: user + nice + system + irq + softirq, steal };
  } catch {
    return { busy: 0, steal: 0 };
  }
}

/** A snapshot of CPU ticks for the given processes ({ name: pid }) and the machine. */
export function cpuSnapshot(pids) {
  const procs = {};
  for (const [name, pid] of Object.entries(pids)) if (pid) procs[name] = processTicks(pid);
  return { at: process.hrtime.bigint(), machine: machineTicks(), procs };
}

/** CPU used between two snapshots, as % of one core: per process, by other processes, and stolen by the host. */
export function cpuBetween(a, b) {
  const wallSeconds = Number(b.at - a.at) / 1e9;
  const pct = (ticks) => (wallSeconds > 0 ? (100 * ticks) / hz / wallSeconds : null);
  const procs = {};
  let own = 0;
  for (const name of Object.keys(b.procs)) {
    const ticks = b.procs[name] - (a.procs[name] ?? 0);
    own += ticks;
    procs[name] = { pct: pct(ticks), seconds: ticks / hz };
  }
  return {
    procs,
    othersPct: pct(Math.max(0, b.machine.busy - a.machine.busy - own)),
    stealPct: pct(b.machine.steal - a.machine.steal),
  };
}
