/**
 * Large validate requests run on worker threads: the JSON body, the YAML parse
 * and the checks of a multi-megabyte lab take long enough to hold up every
 * other request (health included) if they ran on the agent's event loop. The
 * raw body goes to the worker as bytes and only the small verdict comes back.
 * At most POOL_SIZE workers, each with a memory ceiling, and MAX_WAITING
 * validates waiting for one (more: 503 agent_busy). A worker that runs out of
 * memory becomes a diagnostic; one that dies otherwise, a 500 internal_error;
 * never a crash, and the dead worker is replaced.
 *
 * The worker runs this same file: the bundle (dist/agent.js) or the compiled
 * module, chosen by workerData.role.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ErrorCode, ValidateData } from '../../common/api/contract';
import { ApiError } from '../http/api-error';
import { parseObject } from '../http/body';
import { catalogueOf, type CatalogueData } from './catalogue';
import { validateBody } from './validate-body';

const ROLE = 'lab-agent-validate';
const POOL_SIZE = 2;
/** Validates that may wait for a worker; more get 503 agent_busy rather than a queue without end. */
const MAX_WAITING = 2 * POOL_SIZE;
/** Heap of one worker by default: well above what the largest document the agent reads needs. */
export const DEFAULT_WORKER_HEAP_MB = 512;
/** Below this a worker cannot even hold a small lab. */
export const MIN_WORKER_HEAP_MB = 16;

interface Job {
  body: Uint8Array;
  catalogue: CatalogueData;
}
type Verdict = { ok: true; data: ValidateData } | { ok: false; code: ErrorCode; message: string; data?: unknown };

function work(job: Job): Verdict {
  try {
    const body = parseObject(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8'));
    return { ok: true, data: validateBody(body, catalogueOf(job.catalogue)) };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, code: e.code, message: e.message, data: e.data };
    return { ok: false, code: 'internal_error', message: `The validate worker failed: ${(e as Error).message}` };
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  parentPort?.on('message', (job: Job) => parentPort?.postMessage(work(job)));
}

/** Validate verdict when a worker ran out of memory under the document. */
function outOfMemory(heapMb: number): ValidateData {
  return {
    status: 'invalid',
    diagnostics: [
      {
        path: [],
        severity: 'error',
        code: 'document-too-large',
        message: `Reading this lab document took more than the ${heapMb} MB the agent allows one document. Split the lab.`,
      },
    ],
  };
}

export class ValidateWorkers {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  /** `heapMb`: the heap of one worker (--max-validate-memory). */
  constructor(private readonly heapMb = DEFAULT_WORKER_HEAP_MB) {}

  /**
   * Validates a raw request body on a worker thread; the buffer is moved to the worker. A worker
   * that dies is not reused: the next validate starts a new one.
   */
  async validate(body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    if (this.running >= POOL_SIZE) {
      if (this.waiting.length >= MAX_WAITING)
        throw new ApiError(
          'agent_busy',
          `The agent is already validating ${POOL_SIZE + this.waiting.length} large lab documents. Try again shortly.`,
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      return await this.runOn(this.idle.pop() ?? this.spawn(), body, catalogue);
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(__filename, {
      workerData: { role: ROLE },
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    // A busy worker's death is answered in runOn; an idle one that dies just leaves the pool.
    worker.on('error', () => undefined);
    worker.once('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    return worker;
  }

  private runOn(worker: Worker, body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    return new Promise((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onDeath);
        worker.off('exit', onExit);
      };
      const onMessage = (verdict: Verdict) => {
        done();
        if (this.closed) void worker.terminate();
        else this.idle.push(worker);
        if (verdict.ok) resolve(verdict.data);
        else reject(new ApiError(verdict.code, verdict.message, verdict.data));
      };
      const onDeath = (error?: NodeJS.ErrnoException) => {
        done();
        void worker.terminate();
        if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') resolve(outOfMemory(this.heapMb));
        else
          reject(
            new ApiError(
              'internal_error',
              `The worker validating this document stopped (${error?.message ?? 'it exited'}); the agent started a fresh one. Try again.`,
            ),
          );
      };
      worker.on('message', onMessage);
      worker.once('error', onDeath);
      const onExit = () => onDeath();
      worker.once('exit', onExit);
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      worker.postMessage({ body: bytes, catalogue } satisfies Job);
    });
  }
}
