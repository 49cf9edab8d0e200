/**
 * Large validate requests run on worker threads: the JSON body, the YAML parse
 * and the checks of a multi-megabyte lab take long enough to hold up every
 * other request (health included) if they ran on the agent's event loop. The
 * raw body goes to the worker as bytes and only the small verdict comes back. At most POOL_SIZE workers, each with a memory ceiling; a worker
 * that dies (out of memory) becomes a diagnostic, never a crash.
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
/** Heap of one worker: well above what the largest document the agent reads needs. */
const WORKER_HEAP_MB = 512;

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

/** Validate verdict when a worker died under the document (it ran out of memory). */
const OUT_OF_MEMORY: ValidateData = {
  status: 'invalid',
  diagnostics: [
    {
      path: [],
      severity: 'error',
      code: 'document-too-large',
      message: `Reading this lab document took more than the ${WORKER_HEAP_MB} MB the agent allows one document. Split the lab.`,
    },
  ],
};

export class ValidateWorkers {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  /** Validates a raw request body on a worker thread; the buffer is moved to the worker. */
  async validate(body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    if (this.running >= POOL_SIZE) await new Promise<void>((resolve) => this.waiting.push(resolve));
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
    return new Worker(__filename, {
      workerData: { role: ROLE },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
  }

  private runOn(worker: Worker, body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    return new Promise((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onExit);
        worker.off('exit', onExit);
      };
      const onMessage = (verdict: Verdict) => {
        done();
        if (this.closed) void worker.terminate();
        else this.idle.push(worker);
        if (verdict.ok) resolve(verdict.data);
        else reject(new ApiError(verdict.code, verdict.message, verdict.data));
      };
      const onExit = () => {
        done();
        void worker.terminate();
        resolve(OUT_OF_MEMORY);
      };
      worker.on('message', onMessage);
      worker.once('error', onExit);
      worker.once('exit', onExit);
      const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      worker.postMessage({ body: bytes, catalogue } satisfies Job);
    });
  }
}
