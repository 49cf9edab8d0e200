/**
 * Entry of the language server bundle (dist/server.js). The transport comes
 * from the command line: the extension starts it over IPC (--node-ipc),
 * tests and other editors over --stdio.
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
