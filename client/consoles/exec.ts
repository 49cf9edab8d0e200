/**
 * Run a command on a node's console and show what it printed (execConsole),
 * or one command on several nodes at once (execConsoleMany). Output goes to
 * the "Lab Agent: Console Output" channel, one block per node.
 * Automation: `{ uri, node, command }` and `{ uri, nodes, command }` skip the
 * prompts and return the agent's data.
 */
import * as vscode from 'vscode';
import { agentCode, boundedText } from '../../common/api/agent-text';
import type { AgentClient } from '../../common/api/client';
import type { ConsoleExecData, ConsoleExecManyData, ConsoleExecResult } from '../../common/api/contract';
import { registerGuarded } from '../commands/guard';
import { isLabActionAllowed } from '../model/capabilities';
import { fieldOf, nodeListOf, stringArg, targetOfArg } from '../model/command-args';
import { allowedClient } from '../labs/gate';
import {
  consolePayload,
  observationPayload,
  PromptCancelled,
  resolveLab,
  pickNodeName,
  type LabContext,
} from '../labs/lab-context';
import { withCancellableProgress } from '../labs/progress';
import type { Services } from '../services';
import { consoleFamily, errorLookingLine, execManySummary } from '../model/output-errors';
import { LabCommand } from '../../common/commands';

/** Extra time the HTTP call gets beyond the command's own timeout. */
const CALL_MARGIN_MS = 5000;

function timeoutOf(arg: unknown): number | undefined {
  const t = fieldOf(arg, 'timeout_ms');
  return typeof t === 'number' && Number.isInteger(t) && t > 0 ? t : undefined;
}

async function askCommand(arg: unknown, where: string): Promise<string> {
  const given = stringArg(fieldOf(arg, 'command'));
  if (given !== undefined) return given;
  const value = await vscode.window.showInputBox({
    title: `Run on ${where}`,
    prompt: 'The command to type on the console (its output is shown when it finishes)',
    placeHolder: 'show version',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Enter a command.' : undefined),
  });
  if (value === undefined) throw new PromptCancelled();
  return value.trim();
}

class ConsoleExec {
  private channel: vscode.OutputChannel | undefined;

  constructor(private readonly services: Services) {}

  private output(): vscode.OutputChannel {
    this.channel ??= vscode.window.createOutputChannel('Lab Agent: Console Output');
    return this.channel;
  }

  /**
   * Prints one node's result; returns the line of its output that looks like
   * the device refused the command, if one does.
   */
  private printResult(
    lab: LabContext,
    r: ConsoleExecResult | ConsoleExecData,
    ok: boolean,
    error?: string,
  ): string | undefined {
    const out = this.output();
    const took = typeof r.duration_ms === 'number' ? ` (${r.duration_ms} ms)` : '';
    const template = lab.doc.nodes.find((n) => n.name === r.node)?.resolved.template;
    const suspect = ok ? errorLookingLine(r.output ?? '', consoleFamily(template)) : undefined;
    const mark = !ok ? '  FAILED' : suspect !== undefined ? '  LOOKS LIKE AN ERROR' : '';
    out.appendLine(`── ${lab.name}/${r.node ?? '?'} $ ${r.command ?? ''}${took}${mark}`);
    if (ok) out.append((r.output ?? '').replace(/\r\n?/g, '\n').replace(/\n?$/, '\n'));
    else out.appendLine(`   ${error ?? 'failed'}`);
    out.appendLine('');
    return suspect;
  }

  async one(arg: unknown): Promise<ConsoleExecData> {
    const { lab, node: given } = await resolveLab(arg, this.services.labParses);
    const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'consoleExec', lab);
    const node = await pickNodeName(lab, given, 'Run a command on which node?');
    const command = await askCommand(arg, `${lab.name}/${node}`);
    const timeout = timeoutOf(arg);
    const payload = await consolePayload(lab, {
      node,
      command,
      ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
    });
    const data = await withCancellableProgress(`Running "${command}" on ${lab.name}/${node}…`, (signal) =>
      client.execConsole(payload, {
        signal,
        ...(timeout !== undefined ? { timeoutMs: timeout + CALL_MARGIN_MS } : {}),
      }),
    );
    const suspect = this.printResult(lab, { ...data, node: data.node ?? node, command: data.command ?? command }, true);
    this.output().show(true);
    if (suspect !== undefined)
      void vscode.window.showWarningMessage(
        `The output of "${command}" on ${lab.name}/${node} looks like an error: ${suspect}`,
      );
    return data;
  }

  async many(arg: unknown, selection?: unknown): Promise<ConsoleExecManyData> {
    const { lab } = await resolveLab(arg, this.services.labParses);
    const client = allowedClient(this.services.labAgents.sessionOf(lab.uri), 'consoleExec', lab);
    const nodes =
      nodeListOf(fieldOf(arg, 'nodes')) ?? selectedNodes(lab, selection) ?? (await this.pickNodes(client, lab));
    const command = await askCommand(arg, `${nodes.length} node(s) of ${lab.name}`);
    const timeout = timeoutOf(arg);
    const payload = await consolePayload(lab, {
      targets: nodes.map((node) => ({ node, command })),
      ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
    });
    const data = await withCancellableProgress(
      `Running "${command}" on ${nodes.length} node(s) of ${lab.name}…`,
      (signal) =>
        client.execConsoleMany(payload, {
          signal,
          ...(timeout !== undefined ? { timeoutMs: timeout + CALL_MARGIN_MS } : {}),
        }),
    );
    const results = data.results ?? [];
    const suspects: string[] = [];
    results.forEach((r, i) => {
      const name = r.node ?? nodes[i];
      const suspect = this.printResult(
        lab,
        { ...r, node: name, command: r.command ?? command },
        r.ok === true,
        r.error !== undefined ? boundedText(r.error) : agentCode(r.code),
      );
      if (suspect !== undefined) suspects.push(`${name}: ${suspect}`);
    });
    this.output().show(true);
    const failed = results.filter((r) => r.ok !== true).length;
    const text = execManySummary(command, lab.name, results.length, failed, suspects);
    this.services.log.info(text);
    void (failed + suspects.length > 0
      ? vscode.window.showWarningMessage(text)
      : vscode.window.showInformationMessage(text));
    return data;
  }

  /** Nodes whose consoles are up, from the agent when it lists consoles, else from the document. */
  private async pickNodes(client: AgentClient, lab: LabContext): Promise<string[]> {
    let items: { label: string; description?: string; picked: boolean }[];
    if (isLabActionAllowed(this.services.labAgents.sessionOf(lab.uri).capabilities, 'consoles', lab.mode)) {
      const data = await client.listProjectConsoles(observationPayload(lab));
      items = (data.consoles ?? [])
        .filter((c): c is typeof c & { node: string } => typeof c.node === 'string' && c.node !== '')
        .map((c) => ({
          label: c.node,
          description: [c.console_type, c.state].filter(Boolean).join(' · '),
          picked: c.state === 'running',
        }));
    } else {
      items = lab.doc.nodes.map((n) => ({ label: n.name, description: n.resolved.template, picked: true }));
    }
    if (items.length === 0) throw new Error(`${lab.name} has no node consoles. Deploy and start the lab first.`);
    const picked = await vscode.window.showQuickPick(items, {
      title: `Run a command on nodes of ${lab.name}`,
      canPickMany: true,
      placeHolder: 'Pick the nodes',
    });
    if (picked === undefined || picked.length === 0) throw new PromptCancelled();
    return picked.map((p) => p.label);
  }

  dispose(): void {
    this.channel?.dispose();
  }
}

/** Nodes selected in a tree (several rows of the same lab), when the command came from there. */
function selectedNodes(lab: LabContext, selection: unknown): string[] | undefined {
  if (!Array.isArray(selection)) return undefined;
  const nodes = selection
    .map((item) => targetOfArg(item))
    .filter(
      (t): t is { uri: string; node: string } =>
        t !== undefined && t.node !== undefined && t.uri === lab.uri.toString(),
    )
    .map((t) => t.node);
  return nodes.length > 1 ? nodes : undefined;
}

export function registerConsoleExec(services: Services): vscode.Disposable[] {
  const exec = new ConsoleExec(services);
  return [
    exec,
    registerGuarded(services, LabCommand.execConsole, 'Run console command', (arg) => exec.one(arg)),
    registerGuarded(services, LabCommand.execConsoleMany, 'Run console command on nodes', (arg, selection) =>
      exec.many(arg, selection),
    ),
  ];
}
