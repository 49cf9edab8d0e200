/**
 * Entry of the language server bundle (dist/server.js). The transport comes
 * from the command line: the extension starts it over IPC (--node-ipc),
 * tests and other editors over --stdio.
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { MessageQueue } from './message-queue';
import { startServer } from './server';

const queue = new MessageQueue();
startServer(createConnection(ProposedFeatures.all, { messageStrategy: queue }), queue);
