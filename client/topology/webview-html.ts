/** The topology webview's page: only the bundle and its stylesheet load (strict CSP: no inline script or style, no other origin). */
import * as vscode from 'vscode';
import { PAGE_BODY } from './page';

export function pageHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'topology.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'topology-style.css'));
  const source = webview.cspSource;
  // The stylesheet's id is the one Cytoscape.js looks for before inserting an inline <style>, which the CSP would block.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${source}; style-src ${source}; img-src ${source} data:; font-src ${source};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="__________cytoscape_stylesheet" href="${style.toString()}">
<title>Topology</title>
</head>
<body>
${PAGE_BODY}
<script src="${script.toString()}"></script>
</body>
</html>`;
}
