import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { writeFileAtomic } from './storage/atomic-file';

export interface AgentCertificate {
  certPem: string;
  keyPem: string;
  /** Uppercase colon-separated SHA-256 of the DER certificate (what clients pin). */
  fingerprint: string;
}

const CERT_FILE = 'cert.pem';
const KEY_FILE = 'key.pem';
const VALIDITY_YEARS = 10;

/**
 * The agent's TLS identity: a self-signed EC P-256 certificate for 127.0.0.1 and
 * localhost, made on first run and reused afterwards, so a fingerprint that a
 * user pinned stays valid across restarts.
 */
export async function loadOrCreateCertificate(dataDir: string): Promise<AgentCertificate> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const certPath = join(dataDir, CERT_FILE);
  const keyPath = join(dataDir, KEY_FILE);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const certPem = readFileSync(certPath, 'utf8');
    const keyPem = readFileSync(keyPath, 'utf8');
    try {
      return { certPem, keyPem, fingerprint: new X509Certificate(certPem).fingerprint256 };
    } catch (e) {
      throw new Error(
        `The certificate in ${certPath} cannot be read (${(e as Error).message}). Delete ${certPath} and ${keyPath} to make a new one.`,
        { cause: e },
      );
    }
  }

  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + VALIDITY_YEARS);
  const pems = await generate([{ name: 'commonName', value: 'Lab Agent reference agent' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  writeFileAtomic(keyPath, pems.private);
  writeFileAtomic(certPath, pems.cert);
  return { certPem: pems.cert, keyPem: pems.private, fingerprint: new X509Certificate(pems.cert).fingerprint256 };
}
