// One SQLite connection on its own thread: the writer (the only connection that writes) or a
// reader (read-only, WAL lets it read while the writer writes). Plain JavaScript because a worker
// thread does not inherit the TypeScript loader of the main thread (tsx, vitest).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, role } = workerData;
const STATEMENT_CACHE_SIZE = 256;

const db = new Database(file, { readonly: role === 'reader' });
db.pragma('busy_timeout = 5000');
if (role === 'writer') {
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
}

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
  // A reader never runs a statement that writes: the main thread sends it to the writer instead.
  if (role === 'reader' && !statement.readonly) return { notReadonly: true };
  if (statement.reader) return { rows: statement.all(parameters(values)) };
  const { changes, lastInsertRowid } = statement.run(parameters(values));
  return { rows: [], changes, lastInsertRowid };
}

parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const result = run(message.sql, message.parameters);
    parentPort.postMessage({ id: message.id, ...result, inTransaction: db.inTransaction });
  } catch (error) {
    // Only what the error mapping reads crosses the thread: the name, the SQLite code and the text.
    parentPort.postMessage({
      id: message.id,
      error: { name: error?.name ?? 'Error', code: error?.code, message: String(error?.message ?? error) },
      inTransaction: db.inTransaction,
    });
  }
});

parentPort.postMessage({ ready: true });
