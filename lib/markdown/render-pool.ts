import "server-only";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * What became of one document: its HTML; or no HTML, because it ran past the time limit, because the renderer failed
 * on it, or because too much was already waiting for a thread (nothing was done: the caller decides).
 */
export type RenderOutcome = { kind: "rendered"; html: string } | { kind: "timed-out" } | { kind: "failed" } | { kind: "busy" };

export interface RenderPoolOptions {
  /** The most threads at once: started when documents come, each ended after `idleMs` without one. */
  threads: number;
  /** How long a thread waits for a document before it ends, giving its memory back (a minute by default). */
  idleMs?: number;
  /** How long one document may keep a thread; past it the thread is terminated and a fresh one started. */
  timeLimitMs: number;
  /** Documents that may wait for a thread, and their total length: all a flood can make the process hold. */
  maxWaitingDocuments: number;
  maxWaitingCharacters: number;
  /** How long a document may wait for a thread before it is answered `busy`. */
  maxWaitMs: number;
  /** The thread's script (another only in tests). */
  workerFile?: string;
  /** Told when a document runs out of time or a thread fails (the service logs it). */
  onTrouble?: (trouble: { kind: "timed-out" | "failed" | "thread-stopped"; characters?: number; detail?: string }) => void;
}

// A file of its own, loaded by Node as it is (a worker cannot run a bundle's module), found from the working directory
// as the embedded database's thread is.
const renderWorkerFile = path.join(process.cwd(), "lib", "markdown", "render-worker.mjs");

/**
 * A render thread's heap: what a million characters of tables or lists need (under 256 MB), so a document that
 * allocates faster than the time limit can stop it ends its thread (answered `failed`), not the process.
 */
const renderThreadLimits = { maxOldGenerationSizeMb: 256 };

// A thread that stops before it is ready (its script cannot load) is started again after this pause, not in a loop.
const restartPauseMs = 1000;

/**
 * An idle server holds no render thread (each holds some 15 MB); one starts in about 100 ms when a document comes,
 * and stays while documents keep coming.
 */
const defaultIdleMs = 60_000;

interface Job {
  id: number;
  source: string;
  resolve: (outcome: RenderOutcome) => void;
  waitTimer?: NodeJS.Timeout;
}

interface RenderThread {
  worker: Worker;
  ready: boolean;
  /** Terminated or replaced by the pool: its exit is expected. */
  retired: boolean;
  job: Job | null;
  timer?: NodeJS.Timeout;
  /** Ends the thread once it has waited `idleMs` for a document. */
  idleTimer?: NodeJS.Timeout;
  failure?: string;
}

function isIdle(thread: RenderThread): boolean {
  return thread.ready && !thread.retired && thread.job === null;
}

/**
 * Renders Markdown on worker threads, so no document holds up the thread that answers requests, and none holds a
 * render thread longer than the time limit. Work is bounded everywhere: a fixed number of threads, one document
 * each, a waiting line limited in documents, characters and time. Nothing here throws: every document gets an outcome.
 */
export class MarkdownRenderPool {
  readonly #options: RenderPoolOptions;
  readonly #threads: RenderThread[] = [];
  readonly #waiting: Job[] = [];
  #waitingCharacters = 0;
  #nextJobId = 1;
  #closed = false;
  #readyWaiters: Array<() => void> = [];

  constructor(options: RenderPoolOptions) {
    this.#options = options;
  }

  render(source: string): Promise<RenderOutcome> {
    if (this.#closed) return Promise.resolve({ kind: "failed" });
    return new Promise<RenderOutcome>((resolve) => {
      const job: Job = { id: this.#nextJobId++, source, resolve };
      const idle = this.#waiting.length === 0 ? this.#threads.find(isIdle) : undefined;
      if (idle) return this.#run(idle, job);
      // Documents that have no thread start one each, up to the pool's size; they wait for the start, not in the line.
      const starting = this.#threads.filter((thread) => !thread.ready && !thread.retired).length;
      const startsOne = this.#threads.length < this.#options.threads && starting <= this.#waiting.length;
      const { maxWaitingDocuments, maxWaitingCharacters, maxWaitMs } = this.#options;
      if (!startsOne && (this.#waiting.length >= maxWaitingDocuments || this.#waitingCharacters + source.length > maxWaitingCharacters)) {
        return resolve({ kind: "busy" });
      }
      if (startsOne) this.#threads.push(this.#startThread());
      this.#waiting.push(job);
      this.#waitingCharacters += source.length;
      job.waitTimer = setTimeout(() => {
        this.#leaveLine(job);
        resolve({ kind: "busy" });
      }, maxWaitMs);
    });
  }

  /**
   * Starts every thread the pool may have and resolves once each can take a document at once (a thread replaced after
   * a time-out takes a moment to start): what a caller that needs to know where the next document goes waits for.
   */
  whenReady(): Promise<void> {
    while (!this.#closed && this.#threads.length < this.#options.threads) this.#threads.push(this.#startThread());
    if (this.#allReady()) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /** How many threads are running now (started and not ended). */
  get threadCount(): number {
    return this.#threads.length;
  }

  #allReady(): boolean {
    return this.#threads.every((thread) => thread.ready && !thread.retired);
  }

  /** Ends every thread; documents waiting or rendering are answered `failed`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of [...this.#waiting]) {
      this.#leaveLine(job);
      job.resolve({ kind: "failed" });
    }
    await Promise.all(this.#threads.splice(0).map((thread) => this.#retire(thread, { kind: "failed" })));
  }

  #startThread(): RenderThread {
    // Constructed out of the bundler's sight, as the embedded database's thread is (lib/db/pglite-thread.ts).
    const worker: Worker = Reflect.construct(Worker, [this.#options.workerFile ?? renderWorkerFile, { resourceLimits: renderThreadLimits }]);
    // The threads serve requests; they are no reason for the process to stay up.
    worker.unref();
    const thread: RenderThread = { worker, ready: false, retired: false, job: null };
    worker.on("message", (message: { ready?: true; id?: number; html?: string; error?: string }) => {
      if (message.ready) {
        thread.ready = true;
        this.#dispatch();
        if (this.#allReady()) for (const resolve of this.#readyWaiters.splice(0)) resolve();
        return;
      }
      const job = thread.job;
      if (!job || job.id !== message.id) return;
      clearTimeout(thread.timer);
      thread.job = null;
      if (message.html !== undefined) job.resolve({ kind: "rendered", html: message.html });
      else {
        this.#options.onTrouble?.({ kind: "failed", characters: job.source.length, detail: message.error });
        job.resolve({ kind: "failed" });
      }
      this.#dispatch();
    });
    // An uncaught error (or running out of memory) ends the thread; its exit replaces it.
    worker.on("error", (error) => {
      thread.failure = error.message;
    });
    worker.on("exit", (code) => {
      if (thread.retired) return;
      thread.retired = true;
      clearTimeout(thread.timer);
      const job = thread.job;
      thread.job = null;
      job?.resolve({ kind: "failed" });
      this.#options.onTrouble?.({ kind: "thread-stopped", characters: job?.source.length, detail: thread.failure ?? `exit code ${code}` });
      if (thread.ready) this.#replace(thread);
      else setTimeout(() => this.#replace(thread), restartPauseMs).unref();
    });
    return thread;
  }

  #replace(thread: RenderThread): void {
    const index = this.#threads.indexOf(thread);
    if (index === -1 || this.#closed) return;
    this.#threads[index] = this.#startThread();
  }

  /** Ends a thread that waited `idleMs` for a document; the next document starts another. */
  #waitForWork(thread: RenderThread): void {
    clearTimeout(thread.idleTimer);
    thread.idleTimer = setTimeout(() => {
      if (!isIdle(thread)) return;
      this.#threads.splice(this.#threads.indexOf(thread), 1);
      void this.#retire(thread, { kind: "failed" });
    }, this.#options.idleMs ?? defaultIdleMs);
    thread.idleTimer.unref();
  }

  #retire(thread: RenderThread, outcome: RenderOutcome): Promise<number> {
    thread.retired = true;
    clearTimeout(thread.timer);
    clearTimeout(thread.idleTimer);
    thread.job?.resolve(outcome);
    thread.job = null;
    return thread.worker.terminate();
  }

  #leaveLine(job: Job): void {
    const index = this.#waiting.indexOf(job);
    if (index === -1) return;
    this.#waiting.splice(index, 1);
    this.#waitingCharacters -= job.source.length;
    clearTimeout(job.waitTimer);
  }

  #dispatch(): void {
    for (const thread of this.#threads) {
      if (!isIdle(thread)) continue;
      const job = this.#waiting[0];
      if (!job) {
        this.#waitForWork(thread);
        continue;
      }
      this.#leaveLine(job);
      this.#run(thread, job);
    }
  }

  #run(thread: RenderThread, job: Job): void {
    clearTimeout(thread.idleTimer);
    thread.job = job;
    thread.timer = setTimeout(() => {
      // The renderer cannot be interrupted from inside: the thread goes, with whatever it was doing, and a fresh one
      // takes its place.
      this.#options.onTrouble?.({ kind: "timed-out", characters: job.source.length });
      void this.#retire(thread, { kind: "timed-out" });
      this.#replace(thread);
    }, this.#options.timeLimitMs);
    thread.worker.postMessage({ id: job.id, source: job.source });
  }
}
