/**
 * Log In, Log Out and Show Log. Log In takes an optional `{ url, username,
 * password, pin }` that skips the prompts (automation, end-to-end tests); it
 * is never logged.
 */
import type * as vscode from 'vscode';
import { loginArgsOf } from '../model/command-args';
import type { Services } from '../services';
import { registerGuarded } from './guard';
import { LabCommand } from '../../common/commands';

export function registerConnectionCommands(services: Services): vscode.Disposable[] {
  return [
    registerGuarded(services, LabCommand.login, 'Log in', (arg) => services.session.login(loginArgsOf(arg))),
    registerGuarded(services, LabCommand.logout, 'Log out', () => services.session.logout()),
    registerGuarded(services, LabCommand.showLog, 'Show log', () => services.log.show()),
  ];
}
