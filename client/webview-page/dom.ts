/**
 * What the scripts of the extension's webview pages share in the browser: the page's elements by
 * id, and the way to post messages to the extension host.
 */

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

/** The page's element of that id; a page without it is a bug of the page's markup. */
export function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

/** Posts this page's messages to the extension host (VS Code lets a page acquire its API once). */
export function messagesToHost<Message>(): (message: Message) => void {
  const api = acquireVsCodeApi();
  return (message) => api.postMessage(message);
}
