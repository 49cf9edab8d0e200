/// <reference types="mocha" />
/**
 * Typing in a lab file as a user does, keystroke by keystroke through the editor's own `type`
 * command (what a key press runs: auto-closing, quick suggestions and the language server's
 * completion take part as they do for a person): `[` and `{` close where a lab file's flow
 * collections start (VS Code inserts a neutral `0` to see whether the bracket would open a
 * string; the YAML grammar calls a plain scalar a string, which package.json's tokenTypes
 * makes "other"), not inside a quoted string. Needs no agent.
 */
import * as assert from 'assert';
import { writeFileSync } from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { recordFailure, screenshot } from './channel';
import { removeFromWorkspace } from './workspace-files';

const LAB = 'name: typing\nnodes:\n  r1:\n    template: frr\n  r2:\n    template: frr\nlinks:\n';

/** Types `text` one character at a time, pausing as a person does so that suggestions open in between. */
async function typeSlowly(text: string): Promise<void> {
  for (const char of text) {
    await vscode.commands.executeCommand('type', { text: char });
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

describe('Typing in a lab file', function () {
  let editor: vscode.TextEditor;

  before(async function () {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'no workspace folder is open');
    const file = path.join(folder.uri.fsPath, 'typing.lab.yaml');
    writeFileSync(file, LAB);
    editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
    assert.strictEqual(editor.document.languageId, 'lab-yaml');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await recordFailure(this.currentTest.title);
    await vscode.commands.executeCommand('hideSuggestWidget');
  });

  after(async function () {
    if (editor) await removeFromWorkspace(editor.document.uri.fsPath);
  });

  /** Sets the file to `text`, types `before` on its last (empty) line, then `open`, and returns that line as it is then. */
  async function lineAfterTyping(text: string, before: string, open: string): Promise<string> {
    const whole = new vscode.Range(0, 0, editor.document.lineCount, 0);
    assert.ok(await editor.edit((edit) => edit.replace(whole, text)));
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    editor.selection = new vscode.Selection(end, end);
    await typeSlowly(before);
    // Long enough for the completion the space asked for to show, as it does when a person pauses.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await vscode.commands.executeCommand('type', { text: open });
    return editor.document.lineAt(editor.selection.active.line).text;
  }

  it('closes [ on an endpoints line', async function () {
    const line = await lineAfterTyping(LAB, '  - endpoints: ', '[');
    await screenshot('typing-endpoints-bracket');
    assert.strictEqual(line, '  - endpoints: []');
    assert.strictEqual(
      editor.selection.active.character,
      '  - endpoints: ['.length,
      'the cursor is between the brackets',
    );
  });

  it('does not close [ inside a quoted string', async function () {
    const line = await lineAfterTyping(LAB, '  - endpoints: "r1', '[');
    assert.ok(!line.includes('[]'), line);
  });

  it('closes { on a position line', async function () {
    const line = await lineAfterTyping(LAB.replace('links:\n', '  r3:\n'), '    position: ', '{');
    assert.strictEqual(line, '    position: {}');
  });
});
