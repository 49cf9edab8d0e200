// Import rules checked by npm run lint (dependency-cruiser): no cycles, and each
// bundle reaches only what it may (the client and server never import the agent).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules are one feature split badly: move what both need to a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-peer-features',
      severity: 'error',
      comment:
        'Commands, handlers and language services are peers: what two of them share lives in a module of its own ' +
        '(client/labs/, agent/domain/, server/), not in one of the peers.',
      from: { path: '^(client/commands|agent/handlers|server/services)/[^/]+$' },
      to: {
        path: '^$1/[^/]+$',
        pathNot: [
          '^client/commands/guard\\.ts$',
          '^agent/handlers/handler\\.ts$',
          '^server/services/completion-context\\.ts$',
        ],
      },
    },
    {
      name: 'backends-stand-apart',
      severity: 'error',
      comment:
        "Each emulator backend is a folder of its own, as containerlab's runtimes are: it imports no other backend " +
        "and nothing of the agent's domain (agent/domain/) or HTTP layer; what backends share lives in agent/emulator/.",
      from: { path: '^agent/emulator/([^/]+)/' },
      to: {
        path: '^agent/(emulator/[^/]+/|domain/|http/|handlers/)',
        pathNot: '^agent/emulator/$1/',
      },
    },
    {
      name: 'domain-below-the-wire',
      severity: 'error',
      comment:
        "The agent's domain (agent/domain/) knows nothing of requests: it throws its own DomainError, which " +
        'agent/http/api-error.ts maps to envelope codes, and it gets what it needs of a session or the agent ' +
        'context as arguments from the handlers.',
      from: { path: '^agent/domain/' },
      to: { path: '^agent/(http/|handlers/|context\\.ts$|sessions\\.ts$)' },
    },
    {
      name: 'bundles-not-agent',
      severity: 'error',
      comment: 'The extension and the language server talk to the agent over HTTPS only, never by importing it.',
      from: { path: '^(client|server|common)/' },
      to: { path: '^agent/' },
    },
    {
      name: 'common-stands-alone',
      severity: 'error',
      comment: 'common/ is shared by every bundle, so it imports none of them.',
      from: { path: '^common/' },
      to: { path: '^(client|server|agent|test)/' },
    },
    {
      name: 'no-test-in-sources',
      severity: 'error',
      comment: 'Shipped code never imports test support.',
      from: { path: '^(client|server|common|agent)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The e2e runs' copies of the extension and the installed code-server are not the project's code.
    exclude: { path: '^(dist|out|test/e2e/\.(run|cache))/' },
  },
};
