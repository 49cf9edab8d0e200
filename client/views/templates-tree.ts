/**
 * Templates view: the agent's node templates, optionally only the provisioned
 * ones (setting labAgent.templates.provisionedOnly, toggled from the view title);
 * each expands to its images (with availability) and its attributes.
 */
import * as vscode from 'vscode';
import { provisionedOnly, updateSetting } from '../connection/settings';
import { registerGuarded } from '../commands/guard';
import { templateDetailRows, templateRows, type TemplateRowData } from '../model/catalogue-rows';
import type { TreeRow } from '../model/tree-row';
import type { Services } from '../services';
import { AgentTree } from './agent-tree';
import { DEFAULT_AGENT } from '../model/agent-list';
import { LabCommand } from '../../common/commands';

export const TemplatesView = {
  id: 'labAgent.templates',
  contextKey: 'labAgent.templates.provisionedOnly',
} as const;

type Row = TreeRow<TemplateRowData>;

class TemplatesTree extends AgentTree<Row> {
  async getChildren(row?: Row): Promise<Row[]> {
    if (row?.children !== undefined) return row.children;
    if (row === undefined) return this.allAgents();
    const session = this.services.agents.get(row.data.agent ?? DEFAULT_AGENT);
    if (session?.current.state !== 'connected' || row.data.templateId === undefined) return [];
    try {
      return templateDetailRows(await session.agent().getTemplate({ id: row.data.templateId }));
    } catch (err) {
      return this.failed('Loading templates', err);
    }
  }

  /** Every connected agent's templates (`frr` on a Linux agent, `vios` on EVE-NG), each agent's apart. */
  private async allAgents(): Promise<Row[]> {
    const only = provisionedOnly();
    const sessions = this.services.agents.all();
    const loaded = await Promise.all(
      sessions.map(async (session): Promise<Row[] | Error> => {
        if (session.current.state !== 'connected') return [];
        try {
          const data = await session.agent().listTemplates(only ? { provisioned: 'true' } : {});
          return templateRows(data, only).map((r) => ({ ...r, data: { ...r.data, agent: session.name } }));
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
    const failure = loaded.find((l) => l instanceof Error);
    if (sessions.length === 1) {
      // One agent: as before, its failure or emptiness is the view's message line.
      if (failure !== undefined) return this.failed('Loading templates', failure);
      const rows = loaded[0] instanceof Array ? loaded[0] : [];
      this.setMessage(
        rows.length === 0 && sessions[0]?.current.state === 'connected'
          ? only
            ? 'No provisioned templates. Show all templates from the view title.'
            : 'The agent has no templates.'
          : undefined,
      );
      return rows;
    }
    this.setMessage(failure === undefined ? undefined : `Loading templates failed: ${failure.message}`);
    return this.grouped(
      (agent) => {
        const l = loaded[sessions.findIndex((s) => s.name === agent)];
        return l instanceof Array ? l : [];
      },
      (agent) => ({ agent }),
    );
  }
}

export function registerTemplatesView(services: Services): vscode.Disposable[] {
  const tree = new TemplatesTree(services);
  const setFilter = async (only: boolean): Promise<void> => {
    await updateSetting('templates.provisionedOnly', only);
    await vscode.commands.executeCommand('setContext', TemplatesView.contextKey, only);
    tree.refresh();
  };
  void vscode.commands.executeCommand('setContext', TemplatesView.contextKey, provisionedOnly());
  return [
    ...tree.register(TemplatesView.id, { showCollapseAll: true }),
    registerGuarded(services, LabCommand.refreshTemplates, 'Refresh templates', () => {
      services.refreshCatalogue();
      tree.refresh();
    }),
    registerGuarded(services, LabCommand.showProvisionedTemplates, 'Show provisioned templates', () => setFilter(true)),
    registerGuarded(services, LabCommand.showAllTemplates, 'Show all templates', () => setFilter(false)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('labAgent.templates.provisionedOnly')) {
        void vscode.commands.executeCommand('setContext', TemplatesView.contextKey, provisionedOnly());
        tree.refresh();
      }
    }),
  ];
}
