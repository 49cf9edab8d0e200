/**
 * The shape of the typed agent client: one method per operation of the table in
 * contract.ts, and the options every call takes. AgentClient implements it, and
 * helpers that need only some calls (console-stream.ts) ask for just those.
 */
import type { Duplex } from 'node:stream';
import type { OperationId, OperationTypes } from './contract';
import type { StreamReply } from './transport';

export interface CallOptions {
  /** Overrides the operation's default timeout (contract Endpoints table). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type JsonOperationId = Exclude<OperationId, 'streamConsole' | 'streamCapture' | 'streamCaptureSummaries'>;
export type Req<K extends OperationId> = OperationTypes[K]['req'];
export type Res<K extends OperationId> = OperationTypes[K]['res'];

/** The shape every AgentClient must have: one method per operation (checked by the compiler). */
export type OperationMethods = {
  [K in JsonOperationId]: [Req<K>] extends [void]
    ? (options?: CallOptions) => Promise<Res<K>>
    : (request: Req<K>, options?: CallOptions) => Promise<Res<K>>;
} & {
  streamConsole(request: Req<'streamConsole'>, options?: CallOptions): Promise<Duplex>;
  streamCapture(request: Req<'streamCapture'>, options?: CallOptions): Promise<StreamReply>;
  streamCaptureSummaries(request: Req<'streamCaptureSummaries'>, options?: CallOptions): Promise<StreamReply>;
};
