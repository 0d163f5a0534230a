// One read-only SQLite connection on its own thread: WAL lets it read while the main thread's
// connection writes. Plain JavaScript because a worker thread does not inherit the TypeScript loader
// of the main thread (tsx, vitest).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file } = workerData;
const STATEMENT_CACHE_SIZE = 256;

const db = new Database(file, { readonly: true });
db.pragma('busy_timeout = 5000');
// The same functions as functions.ts registers on the main thread's connections (searches use it).
db.function('unicode_lower', { deterministic: true }, (value) =>
  typeof value === 'string' ? value.toLowerCase() : value,
);

/** The most recently used statements by SQL text (SQLite re-prepares them after a schema change). */
const cache = new Map();
function prepare(sql) {
  let statement = cache.get(sql);
  if (statement) {
    cache.delete(sql); // re-inserted below: the Map's order is the recency order
  } else {
    statement = db.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value);
  }
  cache.set(sql, statement);
  return statement;
}

/** Structured clone turns a Buffer into a Uint8Array: better-sqlite3 binds only Buffers. */
function parameters(values) {
  return values.map((value) =>
    value instanceof Uint8Array && !Buffer.isBuffer(value)
      ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      : value,
  );
}

function run(sql, values) {
  const statement = prepare(sql);
  // A reader never runs a statement that writes: the main thread runs it on its writer instead.
  if (!statement.readonly || !statement.reader) return { notReadonly: true };
  return { rows: statement.all(parameters(values)) };
}

parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: message.id, ...run(message.sql, message.parameters) });
  } catch (error) {
    // Only what the error mapping reads crosses the thread: the name, the SQLite code and the text.
    parentPort.postMessage({
      id: message.id,
      error: { name: error?.name ?? 'Error', code: error?.code, message: String(error?.message ?? error) },
    });
  }
});

parentPort.postMessage({ ready: true });
