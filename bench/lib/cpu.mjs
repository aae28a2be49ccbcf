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

/**
 * CPU used over several windows ([[start, end], ...] snapshot pairs, e.g. one target's slices),
 * summed: per process seconds, and pct = summed CPU seconds / summed wall seconds (as cpuBetween).
 */
export function cpuOver(pairs) {
  let wallSeconds = 0;
  let others = 0;
  let steal = 0;
  const procs = {};
  for (const [a, b] of pairs) {
    const wall = Number(b.at - a.at) / 1e9;
    const cpu = cpuBetween(a, b);
    wallSeconds += wall;
    // cpuBetween gives % of one core over its own window: back to core-seconds before summing.
    others += ((cpu.othersPct ?? 0) * wall) / 100;
    steal += ((cpu.stealPct ?? 0) * wall) / 100;
    for (const [name, p] of Object.entries(cpu.procs)) procs[name] = (procs[name] ?? 0) + p.seconds;
  }
  const pct = (s) => (wallSeconds > 0 ? (100 * s) / wallSeconds : null);
  return {
    procs: Object.fromEntries(Object.entries(procs).map(([name, s]) => [name, { pct: pct(s), seconds: s }])),
    othersPct: pct(others),
    stealPct: pct(steal),
    wallSeconds,
  };
}
