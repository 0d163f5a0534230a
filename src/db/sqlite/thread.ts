import { Worker } from 'node:worker_threads';

/** What a statement returned on a reader thread. */
export interface ThreadResult {
  rows: Record<string, unknown>[];
  /** The statement writes: the reader refused it (the caller sends it to the writer). */
  notReadonly?: boolean;
}

interface Reply extends Partial<ThreadResult> {
  id?: number;
  ready?: boolean;
  error?: { name: string; code?: string; message: string };
}

interface Pending {
  resolve(result: ThreadResult): void;
  reject(error: Error): void;
}

const WORKER_URL = new URL('./worker.mjs', import.meta.url);

/** The error as better-sqlite3 raised it on the other thread (name and code kept for the mapping). */
function rebuildError(error: NonNullable<Reply['error']>): Error {
  return Object.assign(new Error(error.message), { name: error.name, code: error.code });
}

/**
 * One read-only SQLite connection on a worker thread. Statements queue on the thread and run one at a time;
 * `pending` is how many wait or run, so the pool can pick the least busy reader.
 */
export class SqliteThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Pending>();
  #nextId = 1;
  #failure: Error | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on('message', (reply: Reply) => this.#settle(reply));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', () => this.#fail(new Error('the SQLite thread stopped')));
  }

  static async start(file: string): Promise<SqliteThread> {
    const worker = new Worker(WORKER_URL, { workerData: { file } });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      worker.once('message', () => {
        worker.off('error', onError);
        resolve();
      });
    });
    // The thread must not keep the process alive on its own: close() ends it explicitly.
    worker.unref();
    return new SqliteThread(worker);
  }

  get pending(): number {
    return this.#waiting.size;
  }

  run(sql: string, parameters: readonly unknown[]): Promise<ThreadResult> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<ThreadResult>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ id, sql, parameters });
    });
  }

  async close(): Promise<void> {
    if (this.#failure) return;
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    this.#worker.ref(); // an unreferenced thread's exit would not keep the process waiting for it
    this.#worker.postMessage({ close: true });
    await exited;
  }

  #settle(reply: Reply): void {
    if (reply.id === undefined) return;
    const pending = this.#waiting.get(reply.id);
    if (!pending) return;
    this.#waiting.delete(reply.id);
    if (reply.error) pending.reject(rebuildError(reply.error));
    else pending.resolve(reply as ThreadResult);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of this.#waiting.values()) pending.reject(this.#failure);
    this.#waiting.clear();
  }
}
