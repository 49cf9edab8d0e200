/**
 * "Open the Sample Lab" (walkthrough): copies the samples shipped with the
 * extension into `samples/` of the workspace, without overwriting anything, and
 * opens the sample that fits the connected agent's templates: the FRR lab on a
 * Linux agent, the campus lab on an EVE-NG-style one; both are offered when
 * both fit, none does or the agent is not known. The copy matters: the lab's
 * state is stored beside the lab file, which must not be inside the installed
 * extension.
 */
import * as vscode from 'vscode';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';
import { fieldOf } from '../model/command-args';
import { PromptCancelled } from '../labs/lab-context';

interface Sample {
  /** Path under samples/. */
  path: string[];
  label: string;
  detail: string;
  /** The templates its nodes use: the sample fits an agent that has them all. */
  templates: string[];
}

const SAMPLES: readonly Sample[] = [
  {
    path: ['ospf', 'ospf.lab.yaml'],
    label: 'OSPF with FRRouting',
    detail: 'Three FRR routers and two Linux hosts (a Linux agent: --emulator linux).',
    templates: ['frr', 'linux'],
  },
  {
    path: ['campus.lab.yaml'],
    label: 'Campus (EVE-NG templates)',
    detail: 'Cisco routers and switches, a Linux host and networks (the simulated agent or EVE-NG).',
    templates: ['csr1000vng', 'vios', 'viosl2', 'iol', 'linux'],
  },
];

async function listFiles(root: vscode.Uri, prefix: string[] = []): Promise<string[][]> {
  const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.joinPath(root, ...prefix));
  const nested = await Promise.all(
    entries.map(([name, type]) =>
      type === vscode.FileType.Directory
        ? listFiles(root, [...prefix, name])
        : Promise.resolve(type === vscode.FileType.File ? [[...prefix, name]] : []),
    ),
  );
  return nested.flat();
}

/** The templates the agent offers, or undefined when that cannot be known now (not logged in, unreachable). */
async function agentTemplates(services: Services): Promise<Set<string> | undefined> {
  try {
    const data = await services.session.agent().listTemplates({});
    return new Set((data.templates ?? []).flatMap((t) => (t.id === undefined ? [] : [t.id])));
  } catch (err) {
    services.log.info(`Open the sample lab: templates not known (${(err as Error).message}); offering every sample`);
    return undefined;
  }
}

async function chooseSample(services: Services, arg: unknown): Promise<Sample> {
  const asked = fieldOf(arg, 'sample');
  const named = SAMPLES.find((s) => s.path.join('/') === asked);
  if (named !== undefined) return named;
  const templates = await agentTemplates(services);
  const missing = (s: Sample): string[] =>
    templates === undefined ? [] : s.templates.filter((t) => !templates.has(t));
  const fitting = SAMPLES.filter((s) => templates !== undefined && missing(s).length === 0);
  if (fitting.length === 1) return fitting[0];
  const items = [...SAMPLES]
    .sort((a, b) => missing(a).length - missing(b).length)
    .map((sample) => {
      const lacks = missing(sample);
      return {
        label: sample.label,
        description: lacks.length > 0 ? `this agent lacks ${lacks.join(', ')}` : undefined,
        detail: sample.detail,
        sample,
      };
    });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Open the Sample Lab',
    placeHolder:
      templates === undefined ? 'Which sample? (log in first to see which fits your agent)' : 'Which sample?',
  });
  if (picked === undefined) throw new PromptCancelled();
  return picked.sample;
}

async function openSample(services: Services, context: vscode.ExtensionContext, arg: unknown): Promise<string> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder === undefined)
    throw new Error('Open a folder first: the sample lab is copied into the workspace so that it can be deployed.');
  const sample = await chooseSample(services, arg);
  const source = vscode.Uri.joinPath(context.extensionUri, 'samples');
  const target = vscode.Uri.joinPath(folder.uri, 'samples');
  const files = await listFiles(source);
  if (!files.some((f) => f.join('/') === sample.path.join('/')))
    throw new Error(`The extension ships no samples/${sample.path.join('/')}.`);
  const edit = new vscode.WorkspaceEdit();
  for (const segments of files) {
    const contents = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(source, ...segments));
    edit.createFile(
      vscode.Uri.joinPath(target, ...segments),
      { contents, ignoreIfExists: true },
      { needsConfirmation: false, label: 'Copy the sample labs' },
    );
  }
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`Could not copy the samples into ${target.fsPath}.`);
  const lab = vscode.Uri.joinPath(target, ...sample.path);
  await vscode.window.showTextDocument(lab, { preview: false });
  return lab.toString();
}

export function registerSampleCommand(services: Services, context: vscode.ExtensionContext): vscode.Disposable {
  return registerGuarded(services, LabCommand.openSample, 'Open the sample lab', (arg) =>
    openSample(services, context, arg),
  );
}
