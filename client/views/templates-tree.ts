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
import { LabCommand } from '../../common/commands';

export const TemplatesView = {
  id: 'labAgent.templates',
  contextKey: 'labAgent.templates.provisionedOnly',
} as const;

type Row = TreeRow<TemplateRowData>;

class TemplatesTree extends AgentTree<Row> {
  async getChildren(row?: Row): Promise<Row[]> {
    if (row?.children !== undefined) return row.children;
    const session = this.services.session;
    if (session.current.state !== 'connected') return [];
    try {
      const client = session.agent();
      if (row === undefined) {
        const only = provisionedOnly();
        const data = await client.listTemplates(only ? { provisioned: 'true' } : {});
        const rows = templateRows(data, only);
        this.setMessage(
          rows.length === 0
            ? only
              ? 'No provisioned templates. Show all templates from the view title.'
              : 'The agent has no templates.'
            : undefined,
        );
        return rows;
      }
      if (row.data.templateId === undefined) return [];
      return templateDetailRows(await client.getTemplate({ id: row.data.templateId }));
    } catch (err) {
      return this.failed('Loading templates', err);
    }
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
