/** The language server's positions and ranges (0-based lines and characters) as VS Code's. */
import * as vscode from 'vscode';
import type { Position as LspPosition, Range as LspRange } from 'vscode-languageserver-protocol';

function toPosition(p: LspPosition): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

export function toRange(r: LspRange): vscode.Range {
  return new vscode.Range(toPosition(r.start), toPosition(r.end));
}

export function rangeContains(range: LspRange, at: vscode.Position): boolean {
  return !at.isBefore(toPosition(range.start)) && !at.isAfter(toPosition(range.end));
}
