/**
 * Builds the language services and wires the LSP messages to them: the
 * services live in language-services.ts, the handlers in handlers/, one
 * module per group of messages.
 */
import type { Connection } from 'vscode-languageserver/node';
import { Guard } from './handlers/guard';
import { registerDocumentSync } from './handlers/document-sync';
import { registerLabAgentMessages } from './handlers/lab-agent-messages';
import { registerLanguageFeatures } from './handlers/language-features';
import { registerLifecycle } from './handlers/lifecycle';
import { LabLanguageServices, type ClientSupports } from './language-services';
import type { MessageQueue } from './message-queue';

export function startServer(connection: Connection, queue: MessageQueue): void {
  // Filled in by initialize; the services read it only after that.
  const supports: ClientSupports = { codeLensRefresh: false, completionEditRangeDefault: false, createFiles: false };
  const services = new LabLanguageServices(connection, supports);
  const guard = new Guard(services.log, services.documents);
  registerLifecycle(connection, services, supports, guard);
  registerDocumentSync(connection, queue, services, guard);
  registerLanguageFeatures(connection, services, guard);
  registerLabAgentMessages(connection, services, guard);
  connection.listen();
}
