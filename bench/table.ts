import type { LoadResult } from './load.ts';

export interface Row {
  name: string;
  dialect: string;
  engine: LoadResult;
  baseline: LoadResult;
  /** The machine's 1-minute load average when the case finished (other processes included). */
  load: number;
}

/** This process's CPU time per request: what a request costs, whatever else the machine runs. */
function cpuPerRequest(result: LoadResult): number {
  return result.cpuMicros / result.requests;
}

/** The results as a plain-text table on stdout (diagnostics go to stderr). */
export function printTable(rows: Row[]): void {
  const header = [
    'case',
    'db',
    'engine req/s',
    'engine p99 ms',
    'baseline req/s',
    'baseline p99 ms',
    'engine/baseline',
    'engine CPU µs/req',
    'baseline CPU µs/req',
    'CPU engine/baseline',
    'load',
  ];
  const lines = rows.map((row) => [
    row.name,
    row.dialect,
    row.engine.requestsPerSecond.toFixed(1),
    String(row.engine.p99Ms),
    row.baseline.requestsPerSecond.toFixed(1),
    String(row.baseline.p99Ms),
    (row.engine.requestsPerSecond / row.baseline.requestsPerSecond).toFixed(2),
    cpuPerRequest(row.engine).toFixed(0),
    cpuPerRequest(row.baseline).toFixed(0),
    (cpuPerRequest(row.engine) / cpuPerRequest(row.baseline)).toFixed(2),
    row.load.toFixed(1),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  console.log(format(header));
  console.log(
    `|${widths.map((w, i) => (i < 2 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
  );
  for (const line of lines) console.log(format(line));
}
