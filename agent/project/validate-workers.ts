/**
 * Large validate and plan requests run on worker threads: the JSON body, the
 * YAML parse and the checks of a multi-megabyte lab take long enough to hold
 * up every other request (health included) if they ran on the agent's event
 * loop. The raw body goes to the worker as bytes; a plan asks the main thread
 * for the live lab its document names; only the verdict comes back.
 * At most POOL_SIZE workers, each with a memory ceiling, and MAX_WAITING
 * validates waiting for one (more: 503 agent_busy). A worker that runs out of
 * memory becomes a diagnostic; one that dies otherwise, a 500 internal_error;
 * never a crash, and the dead worker is replaced.
 *
 * The worker runs this same file: the bundle (dist/agent.js) or the compiled
 * module, chosen by workerData.role.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ErrorCode, ProjectDiagnostic, ValidateData } from '../../common/api/contract';
import { ApiError } from '../http/api-error';
import { parseObject } from '../http/body';
import { catalogueOf, type CatalogueData } from './catalogue';
import { DocumentCache } from './document-cache';
import { DocumentRefused } from './document-limits';
import { checkIdentity, planDocument, type LabView } from './plan-document';
import { readDirection, readProjectInput } from './project-input';
import { validateBody } from './validate-body';

const ROLE = 'lab-agent-validate';
const POOL_SIZE = 2;
/** Jobs that may wait for a worker; more get 503 agent_busy rather than a queue without end. */
const MAX_WAITING = 2 * POOL_SIZE;
/** Heap of one worker by default: well above what the largest document the agent reads needs. */
export const DEFAULT_WORKER_HEAP_MB = 512;
/** Below this a worker cannot even hold a small lab. */
export const MIN_WORKER_HEAP_MB = 16;

/** Validate answers ValidateData; plan answers the plan, asking the main thread for the lab on the way. */
type JobKind = 'validate' | 'plan';
interface Job {
  kind: JobKind;
  body: Uint8Array;
  catalogue: CatalogueData;
}
type Verdict = { ok: true; data: unknown } | { ok: false; code: ErrorCode; message: string; data?: unknown };
/** From a worker: its verdict on the job, or the path of the lab its plan needs. */
type FromWorker = { verdict: Verdict } | { observe: string };
/** To a worker: a job, or the lab it asked for. */
type ToWorker = Job | { view: LabView };

async function work(job: Job, observe: (path: string) => Promise<LabView>): Promise<Verdict> {
  try {
    const body = parseObject(Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8'));
    const catalogue = catalogueOf(job.catalogue);
    if (job.kind === 'validate') return { ok: true, data: validateBody(body, catalogue) };
    const input = readProjectInput(body);
    const direction = readDirection(body);
    // A fresh cache: the plain parse, with the agent's document limits.
    const documents = new DocumentCache();
    const { plan } = await planDocument({ input, direction, catalogue, parse: (y) => documents.parse(y), observe });
    checkIdentity(plan, input.planIdentity);
    // Serialized here: a plan of thousands of actions takes the main thread a while to copy and to stringify.
    return { ok: true, data: JSON.stringify(plan) };
  } catch (e) {
    if (e instanceof ApiError) return { ok: false, code: e.code, message: e.message, data: e.data };
    return { ok: false, code: 'internal_error', message: `The ${job.kind} worker failed: ${(e as Error).message}` };
  }
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  let answer: ((view: LabView) => void) | undefined;
  const observe = (path: string) =>
    new Promise<LabView>((resolve) => {
      answer = resolve;
      parentPort?.postMessage({ observe: path } satisfies FromWorker);
    });
  parentPort?.on('message', (message: ToWorker) => {
    if ('view' in message) answer?.(message.view);
    else void work(message, observe).then((verdict) => parentPort?.postMessage({ verdict } satisfies FromWorker));
  });
}

/** Why a worker ran out of memory under the document, as the diagnostic of a document the agent does not read. */
function outOfMemory(heapMb: number): ProjectDiagnostic {
  return {
    path: [],
    severity: 'error',
    code: 'document-too-large',
    message: `Reading this lab document took more than the ${heapMb} MB the agent allows one document. Split the lab.`,
  };
}

export class ValidateWorkers {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  /** `heapMb`: the heap of one worker (--max-validate-memory). */
  constructor(private readonly heapMb = DEFAULT_WORKER_HEAP_MB) {}

  /** Validates a raw request body on a worker thread; the buffer is moved to the worker. */
  async validate(body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    try {
      return (await this.run('validate', body, catalogue, unobserved)) as ValidateData;
    } catch (e) {
      if (e instanceof DocumentRefused) return { status: 'invalid', diagnostics: [e.diagnostic] };
      throw e;
    }
  }

  /** Plans a raw request body on a worker thread; `observe` gives it the live lab its document names. The plan comes back as JSON. */
  async plan(body: Buffer, catalogue: CatalogueData, observe: (path: string) => Promise<LabView>): Promise<string> {
    return (await this.run('plan', body, catalogue, observe)) as string;
  }

  /** A worker that dies is not reused: the next job starts a new one. */
  private async run(
    kind: JobKind,
    body: Buffer,
    catalogue: CatalogueData,
    observe: (path: string) => Promise<LabView>,
  ): Promise<unknown> {
    if (this.running >= POOL_SIZE) {
      if (this.waiting.length >= MAX_WAITING)
        throw new ApiError(
          'agent_busy',
          `The agent is already reading ${POOL_SIZE + this.waiting.length} large lab documents. Try again shortly.`,
        );
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      return await this.runOn(this.idle.pop() ?? this.spawn(), { kind, body: asBytes(body), catalogue }, observe);
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

  private runOn(worker: Worker, job: Job, observe: (path: string) => Promise<LabView>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onDeath);
        worker.off('exit', onExit);
      };
      const onMessage = (message: FromWorker) => {
        if ('observe' in message) {
          observe(message.observe).then(
            (view) => worker.postMessage({ view } satisfies ToWorker),
            (e: unknown) => {
              done();
              void worker.terminate();
              reject(e);
            },
          );
          return;
        }
        done();
        if (this.closed) void worker.terminate();
        else this.idle.push(worker);
        const { verdict } = message;
        if (verdict.ok) resolve(verdict.data);
        else reject(new ApiError(verdict.code, verdict.message, verdict.data));
      };
      const onDeath = (error?: NodeJS.ErrnoException) => {
        done();
        void worker.terminate();
        if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') reject(new DocumentRefused(outOfMemory(this.heapMb)));
        else
          reject(
            new ApiError(
              'internal_error',
              `The worker reading this document stopped (${error?.message ?? 'it exited'}); the agent started a fresh one. Try again.`,
            ),
          );
      };
      worker.on('message', onMessage);
      worker.once('error', onDeath);
      const onExit = () => onDeath();
      worker.once('exit', onExit);
      worker.postMessage(job satisfies ToWorker);
    });
  }
}

/** A validate job never asks for a lab. */
function unobserved(): Promise<LabView> {
  return Promise.reject(new Error('validate does not read the lab'));
}

function asBytes(body: Buffer): Uint8Array {
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}
