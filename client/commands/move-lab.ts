/**
 * Move Lab to Another Agent: binds a lab file to another agent and plans it
 * there, so the user sees what deploying it would create before anything is
 * created. Nothing is moved on the agents: the lab stays deployed on the old
 * agent until the user destroys it there, and its state file (which names the
 * old agent's lab) is set aside, not deleted.
 */
import * as vscode from 'vscode';
import { setAsideLabState } from '../../common/project-files/state-file';
import { fieldOf, stringArg } from '../model/command-args';
import { moveTargets } from '../model/lab-binding';
import { resolveLab } from '../labs/lab-context';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

async function moveLab(services: Services, arg: unknown): Promise<void> {
  const { lab } = await resolveLab(arg, services.labParses);
  const binding = services.labAgents.bindingOf(lab.uri);
  const targets = moveTargets(binding, services.agents.names());
  if (targets.length === 0)
    throw new Error('There is no other agent to move the lab to: add one with Lab Agent: Add Agent.');
  const given = stringArg(fieldOf(arg, 'agent'));
  if (given !== undefined && !targets.includes(given))
    throw new Error(`"${given}" is not an agent this lab can move to (agents: ${targets.join(', ')}).`);
  const target =
    given ??
    (
      await vscode.window.showQuickPick(
        targets.map((name) => ({ label: name, description: services.agents.get(name)?.current.baseUrl })),
        { title: `Lab Agent: Move ${lab.name} to Another Agent`, placeHolder: `Now on "${binding.agent}"` },
      )
    )?.label;
  if (target === undefined) return;
  const deployed = lab.stored !== undefined;
  if (fieldOf(arg, 'confirmed') !== true) {
    const move = 'Move and Plan';
    const choice = await vscode.window.showWarningMessage(
      `Move ${lab.name} from agent "${binding.agent}" to "${target}"?`,
      {
        modal: true,
        detail:
          `Its commands, views and editor features will use "${target}", and a plan against "${target}" opens: ` +
          'nothing is created there until you apply or deploy it.' +
          (deployed
            ? ` The lab stays deployed on "${binding.agent}" until you destroy it there (do that first if you ` +
              "no longer want it); its state file, which names that agent's lab, is set aside beside it."
            : ''),
      },
      move,
    );
    if (choice !== move) return;
  }
  if (deployed) {
    const aside = await setAsideLabState(lab.labPath, `moved-from-${binding.agent.replace(/[^A-Za-z0-9._-]/g, '_')}`);
    services.log.info(`${lab.name}: the state of its deployment on "${binding.agent}" is kept in ${aside}`);
  }
  await services.labAgents.move(lab.uri, target);
  services.log.info(`${lab.name} now belongs to agent "${target}" (was "${binding.agent}")`);
  services.labStateChanged(lab.uri);
  await vscode.commands.executeCommand(LabCommand.plan, { uri: lab.uri.toString() });
}

export function registerMoveLabCommand(services: Services): vscode.Disposable {
  return registerGuarded(services, LabCommand.moveLab, 'Move lab to another agent', (arg) => moveLab(services, arg));
}
