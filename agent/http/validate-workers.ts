/**
 * Large requests that carry a lab document are read on worker threads: the
 * JSON body, the YAML parse and the checks of a multi-megabyte lab take long
 * enough to hold up every other request (health included) if they ran on the
 * agent's event loop. The raw body goes to the worker as bytes; a plan asks the
 * main thread for the live lab its document names; only the verdict comes back.
 * What bounds the work of a document is here and in common/project-files/document-limits.ts,
 * not its length: each worker has a heap ceiling and each job a time limit, and a
 * document over either is refused with a diagnostic naming the limit (the
 * worker is then replaced). At most POOL_SIZE workers, and MAX_WAITING jobs
 * waiting for one (more: 503 agent_busy). One that dies otherwise is a 500
 * internal_error; never a crash.
 *
 * Each worker keeps the last document it parsed (DocumentCache): a client that
 * plans or validates the same lab again, or an edited one, is not parsed from
 * scratch, and the pool hands the next job to the worker used last.
 *
 * The worker runs this same file: the bundle (dist/agent.js) or the compiled
 * module, chosen by workerData.role.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ErrorCode, ProjectDiagnostic, ValidateData } from '../../common/api/contract';
import { catalogueOf, type CatalogueData } from '../domain/catalogue';
import { DocumentCache } from '../domain/document-cache';
import { DocumentRefused } from '../domain/document-limits';
import { checkIdentity, planDocument, type LabView } from '../domain/plan-document';
import { ApiError, invalidRequest, knownApiError } from './api-error';
import { parseObject } from './body';
import { readDirection, readProjectInput } from './project-payload';
import { validateBody } from './validate-body';

const ROLE = 'lab-agent-validate';
const POOL_SIZE = 2;
/** Jobs that may wait for a worker; more get 503 agent_busy rather than a queue without end. */
const MAX_WAITING = 2 * POOL_SIZE;
/** Heap of one worker by default: well above what a 10,000-node lab needs (about 200 MB). */
export const DEFAULT_WORKER_HEAP_MB = 512;
/** Below this a worker cannot even hold a small lab. */
export const MIN_WORKER_HEAP_MB = 16;
/** Time one job may take by default: a 10,000-node lab takes a few seconds on a busy machine. */
export const DEFAULT_WORKER_SECONDS = 60;
/** Request bodies nest JSON a few levels (files and state are shallow); deeper is refused before JSON.parse builds it. */
const MAX_JSON_NESTING = 64;

/**
 * Validate answers ValidateData; plan answers the plan, asking the main thread
 * for the lab on the way; read only reads the document (for the calls the main
 * thread then handles: deploy, reconcile, authoring), so that it is within the limits.
 */
type JobKind = 'validate' | 'plan' | 'read';
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

async function work(job: Job, documents: DocumentCache, observe: (path: string) => Promise<LabView>): Promise<Verdict> {
  try {
    const bytes = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    if (jsonNesting(bytes) > MAX_JSON_NESTING)
      throw invalidRequest(
        `The request body nests JSON more than ${MAX_JSON_NESTING} levels deep (the agent's limit); a project request needs a few.`,
      );
    const body = parseObject(bytes.toString('utf8'));
    const parse = (yaml: string) => documents.parse(yaml);
    if (job.kind === 'read') {
      if (typeof body.yaml === 'string') parse(body.yaml);
      return { ok: true, data: null };
    }
    const catalogue = catalogueOf(job.catalogue);
    if (job.kind === 'validate') return { ok: true, data: validateBody(body, catalogue, parse) };
    const input = readProjectInput(body);
    const direction = readDirection(body);
    const { plan } = await planDocument({ input, direction, catalogue, parse, observe });
    checkIdentity(plan, input.planIdentity);
    // Serialized here: a plan of thousands of actions takes the main thread a while to copy and to stringify.
    return { ok: true, data: JSON.stringify(plan) };
  } catch (e) {
    const known = knownApiError(e);
    if (known) return { ok: false, code: known.code, message: known.message, data: known.data };
    return { ok: false, code: 'internal_error', message: `The ${job.kind} worker failed: ${(e as Error).message}` };
  }
}

/** The deepest nesting of [ ] and { } outside strings in a JSON text, read as bytes (one pass, nothing built). */
function jsonNesting(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if ((b === 0x5d || b === 0x7d) && depth > 0) depth--;
  }
  return deepest;
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === ROLE) {
  const documents = new DocumentCache();
  let answer: ((view: LabView) => void) | undefined;
  const observe = (path: string) =>
    new Promise<LabView>((resolve) => {
      answer = resolve;
      parentPort?.postMessage({ observe: path } satisfies FromWorker);
    });
  parentPort?.on('message', (message: ToWorker) => {
    if ('view' in message) answer?.(message.view);
    else
      void work(message, documents, observe).then((verdict) =>
        parentPort?.postMessage({ verdict } satisfies FromWorker),
      );
  });
}

/** A worker ran out of memory under the document: the diagnostic of a document the agent does not read. */
function outOfMemory(heapMb: number): ProjectDiagnostic {
  return {
    path: [],
    severity: 'error',
    code: 'memory-limit',
    message: `Reading this lab document took more than the ${heapMb} MB of memory the agent allows one document (its --max-validate-memory). Split the lab, or look for what makes it costly.`,
  };
}

/** A job went past the time limit: the worker is stopped, and the document refused. */
function outOfTime(seconds: number): ProjectDiagnostic {
  return {
    path: [],
    severity: 'error',
    code: 'time-limit',
    message: `Reading this lab document took more than the ${seconds} s the agent allows one document (its --max-validate-seconds). Split the lab, or look for what makes it costly.`,
  };
}

export class ValidateWorkers {
  private readonly idle: Worker[] = [];
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  /** `heapMb`: the heap of one worker (--max-validate-memory); `seconds`: the time of one job (--max-validate-seconds). */
  constructor(
    private readonly heapMb = DEFAULT_WORKER_HEAP_MB,
    private readonly seconds = DEFAULT_WORKER_SECONDS,
  ) {}

  /** Validates a raw request body on a worker thread (which gets a copy of the bytes). */
  async validate(body: Buffer, catalogue: CatalogueData): Promise<ValidateData> {
    try {
      return (await this.run('validate', body, catalogue, unobserved)) as ValidateData;
    } catch (e) {
      if (e instanceof DocumentRefused) return { status: 'invalid', diagnostics: [e.diagnostic] };
      throw e;
    }
  }

  /** Reads the document of a raw request body on a worker thread: throws DocumentRefused (422 invalid_lab) when it is over a limit. */
  async read(body: Buffer): Promise<void> {
    await this.run('read', body, { templates: [], icons: [], networkTypes: [] }, unobserved);
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
      // The clock runs while the worker works, not while the main thread observes the lab for it.
      let left = this.seconds * 1000;
      let since = 0;
      let timer: NodeJS.Timeout | undefined;
      const startClock = () => {
        since = performance.now();
        timer = setTimeout(() => {
          done();
          void worker.terminate();
          reject(new DocumentRefused(outOfTime(this.seconds)));
        }, left);
      };
      const stopClock = () => {
        clearTimeout(timer);
        left -= performance.now() - since;
      };
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onDeath);
        worker.off('exit', onExit);
      };
      const onMessage = (message: FromWorker) => {
        if ('observe' in message) {
          stopClock();
          observe(message.observe).then(
            (view) => {
              startClock();
              worker.postMessage({ view } satisfies ToWorker);
            },
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
      startClock();
      worker.postMessage(job satisfies ToWorker);
    });
  }
}

/** Only a plan job asks for a lab. */
function unobserved(): Promise<LabView> {
  return Promise.reject(new Error('only a plan reads the lab'));
}

function asBytes(body: Buffer): Uint8Array {
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}
