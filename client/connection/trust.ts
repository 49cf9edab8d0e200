/**
 * Trust on first use, as SSH does it: the first time the agent's certificate is
 * not trusted, show its SHA-256 fingerprint and let the user pin it. When a
 * pinned certificate changes, warn loudly and connect only if the user
 * explicitly pins the new one. A fingerprint is not a secret; it is stored in
 * the agent's settings by the session.
 */
import * as vscode from 'vscode';
import { normalizeFingerprint, readServerCertificate, type ServerCertificate } from '../../common/api/tls';
import type { Log } from '../log';

async function fetchCertificate(baseUrl: string, log: Log): Promise<ServerCertificate | undefined> {
  try {
    return await readServerCertificate(baseUrl);
  } catch (err) {
    log.error(`Could not read the certificate of ${baseUrl}: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(`Could not read the certificate of ${baseUrl}: ${(err as Error).message}`);
    return undefined;
  }
}

function certificateDetail(cert: ServerCertificate): string {
  return [
    `SHA-256 fingerprint:\n${cert.fingerprint}`,
    `Subject: ${cert.subject}`,
    `Issuer: ${cert.issuer}`,
    `Valid until: ${cert.validTo}`,
  ].join('\n\n');
}

/** Asks whether to trust the agent's certificate; returns the pin to store, or undefined when declined. */
export async function askToTrust(baseUrl: string, log: Log): Promise<string | undefined> {
  const cert = await fetchCertificate(baseUrl, log);
  if (cert === undefined) return undefined;
  const trust = 'Trust and Pin';
  const choice = await vscode.window.showWarningMessage(
    `The Lab Agent at ${baseUrl} presents a certificate that is not trusted yet. Trust it?`,
    {
      modal: true,
      detail:
        `${certificateDetail(cert)}\n\nCompare the fingerprint with the one the agent printed when it started ` +
        '(or ask its administrator). If they match, pin it: later connections accept only this certificate.',
    },
    trust,
  );
  if (choice !== trust) {
    log.info(`Certificate of ${baseUrl} not trusted by the user`);
    return undefined;
  }
  const pin = normalizeFingerprint(cert.fingerprint);
  log.info(`Pinned the certificate of ${baseUrl}: ${pin}`);
  return pin;
}

/**
 * The pinned certificate changed. Shows both fingerprints; returns the new pin
 * only when the user explicitly chooses to re-pin.
 */
export async function askToRepin(baseUrl: string, pinned: string, log: Log): Promise<string | undefined> {
  const cert = await fetchCertificate(baseUrl, log);
  if (cert === undefined) return undefined;
  log.warn(`Certificate of ${baseUrl} does not match the pin: pinned ${pinned}, presented ${cert.fingerprint}`);
  const repin = 'Re-pin to the New Certificate';
  const choice = await vscode.window.showErrorMessage(
    `WARNING: the certificate of the Lab Agent at ${baseUrl} has CHANGED. Not connecting.`,
    {
      modal: true,
      detail:
        `Pinned fingerprint:\n${pinned}\n\nPresented fingerprint:\n${cert.fingerprint}\n\n` +
        `Subject: ${cert.subject}\nIssuer: ${cert.issuer}\nValid until: ${cert.validTo}\n\n` +
        'Someone may be intercepting the connection, or the agent got a new certificate. ' +
        "Re-pin only if you know why it changed (for example, you regenerated the agent's certificate).",
    },
    repin,
  );
  if (choice !== repin) return undefined;
  const pin = normalizeFingerprint(cert.fingerprint);
  log.warn(`Re-pinned the certificate of ${baseUrl} at the user's request: ${pin}`);
  return pin;
}
