/**
 * The page of each of the extension's webviews (the topology, the live packet list): only its
 * bundle `dist/<bundle>.js` and its stylesheet `dist/<bundle>-style.css` load (strict CSP: no
 * inline script or style, no other origin).
 */
import * as vscode from 'vscode';

export interface WebviewPage {
  bundle: string;
  title: string;
  /** The markup the bundle fills in. */
  body: string;
  /** Directives beyond scripts and styles, given the webview's own source (images, fonts). */
  moreSources?: (source: string) => string;
  /** The stylesheet link's id, for a library that looks for its stylesheet by id. */
  styleId?: string;
}

export function webviewHtml(webview: vscode.Webview, dist: vscode.Uri, page: WebviewPage): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, `${page.bundle}.js`));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, `${page.bundle}-style.css`));
  const source = webview.cspSource;
  const more = page.moreSources ? ` ${page.moreSources(source)}` : '';
  const id = page.styleId ? ` id="${page.styleId}"` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${source}; style-src ${source};${more}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet"${id} href="${style.toString()}">
<title>${page.title}</title>
</head>
<body>
${page.body}
<script src="${script.toString()}"></script>
</body>
</html>`;
}
