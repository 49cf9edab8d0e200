/** The topology webview's page (client/webview-html.ts): the drawing also loads images and fonts of its own source. */
import type * as vscode from 'vscode';
import { webviewHtml } from '../webview-html';
import { PAGE_BODY } from './page';

export function pageHtml(webview: vscode.Webview, dist: vscode.Uri): string {
  return webviewHtml(webview, dist, {
    bundle: 'topology',
    title: 'Topology',
    body: PAGE_BODY,
    moreSources: (source) => `img-src ${source} data:; font-src ${source};`,
    // The id Cytoscape.js looks for before inserting an inline <style>, which the CSP would block.
    styleId: '__________cytoscape_stylesheet',
  });
}
