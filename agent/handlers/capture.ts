/** startCapture (decisions §14): checks what to capture and hands out a one-time ticket for the stream. */
import { CAPTURE_LIMITS, operationPath, type CaptureStartData } from '../../common/api/contract';
import {
  CaptureFilterError,
  EmuNodeStatus,
  type CaptureTarget,
  type EmuLab,
  type EmulatorCapture,
  type PacketSummarizer,
} from '../emulator/backend';
import { CaptureSummaries } from '../capture/capture-summaries';
import { ApiError, invalidRequest } from '../http/api-error';
import { optionalBoolean, optionalInteger, optionalString, rejectLocalPaths, type Body } from '../http/fields';
import { requireLab } from '../domain/lab-guards';
import { labOf } from '../domain/project-input';
import { readProjectInput } from '../http/project-payload';
import type { SessionHandler } from './handler';

const TARGET_PATTERN = /^([^:\s]+):([^:\s]+)$/;

function boundedInteger(body: Body, field: string, bounds: { min: number; max: number }, fallback: number): number {
  const value = optionalInteger(body, field) ?? fallback;
  if (value < bounds.min || value > bounds.max)
    throw invalidRequest(`"${field}" must be between ${bounds.min} and ${bounds.max}, not ${value}.`);
  return value;
}

function readTargets(body: Body): string[] {
  const raw = body.targets;
  if (!Array.isArray(raw) || raw.length === 0)
    throw invalidRequest('"targets" is required: a list of "node:interface" names, e.g. ["r1:eth1"].');
  if (raw.length > CAPTURE_LIMITS.targets)
    throw invalidRequest(`"targets" may hold at most ${CAPTURE_LIMITS.targets} interfaces, not ${raw.length}.`);
  const seen = new Set<string>();
  return raw.map((t, i) => {
    if (typeof t !== 'string' || !TARGET_PATTERN.test(t))
      throw invalidRequest(`"targets[${i}]" must be a "node:interface" name such as "r1:eth1".`);
    if (seen.has(t)) throw invalidRequest(`"targets" names ${t} twice.`);
    seen.add(t);
    return t;
  });
}

function readFilter(body: Body): string {
  const filter = (optionalString(body, 'filter') ?? '').trim();
  if (filter.length > CAPTURE_LIMITS.filterChars)
    throw invalidRequest(`"filter" may have at most ${CAPTURE_LIMITS.filterChars} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(filter)) throw invalidRequest('"filter" must not hold control characters.');
  return filter;
}

/** The live node and interface of each target, which must exist and run. */
function resolveTargets(live: EmuLab, targets: string[]): CaptureTarget[] {
  return targets.map((label) => {
    const [, nodeName, ifname] = TARGET_PATTERN.exec(label) as RegExpExecArray;
    const node = live.nodes.find((n) => n.name === nodeName);
    if (!node)
      throw new ApiError(
        'node_not_found',
        `Lab ${live.path} has no node "${nodeName}". Nodes: ${live.nodes.map((n) => n.name).join(', ') || 'none'}.`,
      );
    const iface = node.interfaces.find((i) => i.name === ifname);
    if (!iface)
      throw new ApiError(
        'interface_not_found',
        `${nodeName} has no interface "${ifname}". Its interfaces: ${node.interfaces.map((i) => i.name).join(', ') || 'none'}.`,
      );
    if (node.status !== EmuNodeStatus.running)
      throw new ApiError(
        'node_not_running',
        `${nodeName} is not running (it is ${['stopped', 'starting', 'running', 'stopping'][node.status]}), so ${label} carries no packets. Start it first.`,
      );
    return { nodeId: node.id, index: iface.index, label };
  });
}

/** With `summaries: true`, how the agent's dissector starts; refused where the agent has none. */
function readSummaries(body: Body, emulator: EmulatorCapture): (() => Promise<PacketSummarizer>) | undefined {
  const asked = optionalBoolean(body, 'summaries') ?? false;
  if (!asked) return undefined;
  if (!emulator.summarize)
    throw new ApiError(
      'operation_not_allowed',
      'This agent does not summarize packets (the capabilities have no "capture_summaries" feature): it has no tshark. Capture without "summaries" and decode the pcapng where you read it.',
    );
  return () => (emulator.summarize as () => Promise<PacketSummarizer>)();
}

export const startCapture: SessionHandler = async ({ ctx, session, body }): Promise<CaptureStartData> => {
  rejectLocalPaths(body);
  const { lab: labField, yaml, files, state, manifest } = body;
  const lab = labOf(session.documents, readProjectInput({ lab: labField, yaml, files, state, manifest }));
  // Capturing changes nothing in the lab: like the other reads, it does not claim a lab without owner.
  ctx.owners.check(lab, session.username);
  const emulator = session.emulator.capture;
  if (!emulator)
    throw new ApiError(
      'operation_not_allowed',
      'This emulator does not capture packets (the capabilities have no "capture" feature); the Linux emulator with Wireshark\'s dumpcap does.',
    );
  const targets = readTargets(body);
  const filter = readFilter(body);
  const snaplen = boundedInteger(body, 'snaplen', CAPTURE_LIMITS.snaplen, CAPTURE_LIMITS.snaplen.max);
  const durationMs = boundedInteger(body, 'duration_ms', CAPTURE_LIMITS.durationMs, CAPTURE_LIMITS.durationMs.max);
  const maxBytes = boundedInteger(body, 'max_bytes', CAPTURE_LIMITS.maxBytes, CAPTURE_LIMITS.maxBytes.max);
  const summarize = readSummaries(body, emulator);
  const live = await requireLab(session.emulator, lab);
  const spec = { targets: resolveTargets(live, targets), filter, snaplen };
  try {
    await emulator.checkFilter(lab, spec);
  } catch (e) {
    if (e instanceof CaptureFilterError)
      throw new ApiError('invalid_filter', `The capture filter does not compile: ${e.message}`);
    throw e;
  }
  const { ticket, summariesTicket } = ctx.captures.issue(session.token, {
    username: session.username,
    lab,
    spec,
    durationMs,
    maxBytes,
    summaries: summarize && new CaptureSummaries(summarize),
  });
  return {
    ticket,
    stream: operationPath('streamCapture', { ticket }),
    format: 'pcapng',
    targets: spec.targets.map((t) => {
      const [node, iface] = t.label.split(':');
      return { target: t.label, node, interface: iface };
    }),
    filter,
    snaplen,
    duration_ms: durationMs,
    max_bytes: maxBytes,
    ...(summariesTicket && {
      summaries_ticket: summariesTicket,
      summaries: operationPath('streamCaptureSummaries', { ticket: summariesTicket }),
    }),
  };
};
