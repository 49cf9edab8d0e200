/**
 * Every command the extension contributes (package.json `contributes.commands`),
 * in one place: the extension registers and runs them by these ids, and the
 * language server's code lenses name them. A lens passes one LensCommandArgs.
 */
export const LabCommand = {
  login: 'labAgent.login',
  logout: 'labAgent.logout',
  addAgent: 'labAgent.addAgent',
  removeAgent: 'labAgent.removeAgent',
  moveLab: 'labAgent.moveLab',
  showConnection: 'labAgent.showConnection',
  showLog: 'labAgent.showLog',
  openSample: 'labAgent.openSample',
  validate: 'labAgent.validate',
  plan: 'labAgent.plan',
  planPrune: 'labAgent.planPrune',
  applyPlan: 'labAgent.applyPlan',
  deploy: 'labAgent.deploy',
  reconcile: 'labAgent.reconcile',
  reconcileToEmu: 'labAgent.reconcileToEmu',
  reconcileFromEmu: 'labAgent.reconcileFromEmu',
  destroy: 'labAgent.destroy',
  importLab: 'labAgent.importLab',
  status: 'labAgent.status',
  inspect: 'labAgent.inspect',
  openLab: 'labAgent.openLab',
  refreshReport: 'labAgent.refreshReport',
  startLab: 'labAgent.startLab',
  stopLab: 'labAgent.stopLab',
  wipeLab: 'labAgent.wipeLab',
  startNode: 'labAgent.startNode',
  stopNode: 'labAgent.stopNode',
  wipeNode: 'labAgent.wipeNode',
  openConsole: 'labAgent.openConsole',
  execConsole: 'labAgent.execConsole',
  execConsoleMany: 'labAgent.execConsoleMany',
  capture: 'labAgent.capture',
  openLabFile: 'labAgent.openLabFile',
  refreshLabs: 'labAgent.refreshLabs',
  refreshConsoles: 'labAgent.refreshConsoles',
  refreshTemplates: 'labAgent.refreshTemplates',
  refreshNetworkTypes: 'labAgent.refreshNetworkTypes',
  showProvisionedTemplates: 'labAgent.showProvisionedTemplates',
  showAllTemplates: 'labAgent.showAllTemplates',
  showTopology: 'labAgent.showTopology',
} as const;

/** The argument of every code lens command. */
export interface LensCommandArgs {
  /** The lab document's URI. */
  uri: string;
  /** The node, for node lenses. */
  node?: string;
}
