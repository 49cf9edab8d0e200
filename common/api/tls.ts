/**
 * How the client decides to trust the agent's certificate:
 * - a CA (PEM) given: the chain and host name must verify against it → else tls_untrusted;
 * - a pin given: the SHA-256 fingerprint of the DER certificate must equal it → else
 *   tls_pin_mismatch. With a pin and no CA, the chain is not checked, so a self-signed
 *   certificate stored by trust-on-first-use is accepted;
 * - neither: the system's trust store (a self-signed agent is tls_untrusted).
 * Node's own rejection is switched off so that the check runs here, on every new
 * connection, and fails with our codes.
 */
import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type * as undici from 'undici';
import type { buildConnector } from 'undici';
import { parseAgentUrl } from './base-url';
import { Deadline } from './deadline';
import { AgentError, TlsCheckError, toTransportError } from './errors';

export interface TrustSettings {
  /** PEM trust root(s). */
  ca?: string;
  /** SHA-256 fingerprint of the DER certificate, in any accepted spelling. */
  pin?: string;
}

const HEX_64 = /^[0-9A-F]{64}$/;

/** Whether `fp` spells a SHA-256 fingerprint: 64 hex digits, any case, colons or spaces optional. */
export function isFingerprint(fp: string): boolean {
  return typeof fp === 'string' && HEX_64.test(fp.replace(/[:\s]/g, '').toUpperCase());
}

/**
 * 'ab:cd…', 'ABCD…' → 'AB:CD:…' (uppercase, colon-separated, as Node prints fingerprint256).
 * Throws AgentError tls_pin_mismatch for anything that is not a SHA-256 fingerprint,
 * because a malformed pin can never match and the remedy is the same: trust the agent again.
 */
export function normalizeFingerprint(fp: string): string {
  if (!isFingerprint(fp)) {
    throw new AgentError(
      'tls_pin_mismatch',
      'The pinned certificate fingerprint is not a SHA-256 fingerprint (64 hex digits, colons optional); trust the agent again to replace it.',
      'normalizeFingerprint',
    );
  }
  return fp
    .replace(/[:\s]/g, '')
    .toUpperCase()
    .replace(/..(?!$)/g, '$&:');
}

/** The check both ends of a connection need: undefined when the socket may be used. */
export function checkPeer(socket: TLSSocket, trust: TrustSettings): TlsCheckError | undefined {
  if (trust.ca !== undefined || trust.pin === undefined) {
    if (!socket.authorized) {
      const why = String(socket.authorizationError ?? 'unknown reason');
      const against = trust.ca !== undefined ? 'the configured CA certificate' : "the system's trusted CAs";
      return new TlsCheckError(
        'tls_untrusted',
        `The agent's certificate is not trusted by ${against} (${why}). Trust the agent's certificate or configure the CA that signed it.`,
      );
    }
  }
  if (trust.pin !== undefined) {
    const actual = socket.getPeerCertificate()?.fingerprint256;
    if (actual !== trust.pin) {
      return new TlsCheckError(
        'tls_pin_mismatch',
        `The agent's certificate does not match the pinned one: expected ${trust.pin}, got ${actual || 'no certificate'}. If the agent's certificate was renewed, trust it again.`,
      );
    }
  }
  return undefined;
}

/**
 * An undici connector applying the trust settings. The pin must already be
 * normalised (see normalizeFingerprint).
 */
export function createTlsConnector(trust: TrustSettings): buildConnector.connector {
  // Required on first use, like the Pool in transport.ts: undici is slow to load.
  const { buildConnector } = require('undici') as typeof undici;
  // No session cache: a resumed TLS session shows no peer certificate, so every
  // connection does a full handshake and its certificate is checked (keep-alive keeps this rare).
  const base = buildConnector({ ca: trust.ca, rejectUnauthorized: false, maxCachedSessions: 0 });
  return (options, callback) => {
    base(options, (err, socket) => {
      if (err) {
        callback(err, null);
        return;
      }
      const problem = checkPeer(socket as TLSSocket, trust);
      if (problem) {
        socket.destroy();
        callback(problem, null);
      } else {
        callback(null, socket);
      }
    });
  };
}

export interface ServerCertificate {
  /** 'AB:CD:…', uppercase: the value to store as the pin. */
  fingerprint: string;
  pem: string;
  subject: string;
  issuer: string;
  validTo: string;
}

const READ_CERT = 'readServerCertificate';
const READ_CERT_TIMEOUT_MS = 15_000;

/**
 * Connects to the agent WITHOUT trusting it and returns its certificate, so that
 * the user can be asked whether to trust it (trust on first use). Sends no request.
 */
export async function readServerCertificate(
  baseUrl: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ServerCertificate> {
  const url = parseAgentUrl(baseUrl, READ_CERT);
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = tlsConnect({
      host,
      port: Number(url.port || 443),
      servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      rejectUnauthorized: false,
    });
    const finish = (outcome: () => void): void => {
      deadline.dispose();
      socket.destroy();
      outcome();
    };
    const deadline = new Deadline(READ_CERT, options.timeoutMs ?? READ_CERT_TIMEOUT_MS, options.signal, (reason) =>
      finish(() => reject(reason)),
    );
    socket.once('secureConnect', () => {
      const raw = socket.getPeerCertificate()?.raw;
      if (!raw) {
        finish(() =>
          reject(new AgentError('tls_untrusted', `The server at ${url.origin} presented no certificate.`, READ_CERT)),
        );
        return;
      }
      const cert = new X509Certificate(raw);
      finish(() =>
        resolve({
          fingerprint: cert.fingerprint256,
          pem: cert.toString(),
          subject: cert.subject.replace(/\n/g, ', '),
          issuer: cert.issuer.replace(/\n/g, ', '),
          validTo: cert.validTo,
        }),
      );
    });
    socket.once('error', (err) => finish(() => reject(toTransportError(err, READ_CERT, url.origin))));
  });
}
