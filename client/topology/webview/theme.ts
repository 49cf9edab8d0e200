/**
 * The drawing's colours and symbols from the VS Code theme: the webview's
 * CSS variables, read again whenever the theme changes (VS Code swaps the
 * body's vscode-light / vscode-dark / vscode-high-contrast class).
 */
import type { NodeSymbol } from '../messages';

export interface Palette {
  foreground: string;
  background: string;
  muted: string;
  nodeFill: string;
  border: string;
  focus: string;
  running: string;
  stopped: string;
  settling: string;
  problem: string;
  create: string;
  update: string;
  remove: string;
  highContrast: boolean;
  fontFamily: string;
}

/** Used where a variable is not set (outside VS Code, e.g. the benchmark page). */
const FALLBACK: Omit<Palette, 'highContrast' | 'fontFamily'> = {
  foreground: '#cccccc',
  background: '#1e1e1e',
  muted: '#9d9d9d',
  nodeFill: '#252526',
  border: '#454545',
  focus: '#007fd4',
  running: '#73c991',
  stopped: '#8b8b8b',
  settling: '#cca700',
  problem: '#f48771',
  create: '#81b88b',
  update: '#e2c08d',
  remove: '#c74e39',
};

const VARIABLES: Record<keyof typeof FALLBACK, string[]> = {
  foreground: ['--vscode-editor-foreground', '--vscode-foreground'],
  background: ['--vscode-editor-background'],
  muted: ['--vscode-descriptionForeground'],
  nodeFill: ['--vscode-editorWidget-background', '--vscode-editor-background'],
  border: ['--vscode-contrastBorder', '--vscode-editorWidget-border', '--vscode-widget-border'],
  focus: ['--vscode-focusBorder'],
  running: ['--vscode-testing-iconPassed'],
  stopped: ['--vscode-disabledForeground'],
  settling: ['--vscode-editorWarning-foreground'],
  problem: ['--vscode-errorForeground'],
  create: ['--vscode-gitDecoration-addedResourceForeground'],
  update: ['--vscode-gitDecoration-modifiedResourceForeground'],
  remove: ['--vscode-gitDecoration-deletedResourceForeground'],
};

export function readPalette(): Palette {
  const style = getComputedStyle(document.documentElement);
  const palette = {
    highContrast: document.body.classList.contains('vscode-high-contrast'),
    fontFamily: style.getPropertyValue('--vscode-font-family').trim() || 'sans-serif',
  } as Palette;
  for (const key of Object.keys(FALLBACK) as (keyof typeof FALLBACK)[]) {
    const value = VARIABLES[key].map((name) => style.getPropertyValue(name).trim()).find((v) => v !== '');
    palette[key] = value ?? FALLBACK[key];
  }
  return palette;
}

/** Calls `changed` when VS Code switches the theme. */
export function onThemeChange(changed: () => void): void {
  new MutationObserver(changed).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}

/** Line drawings, 24×24, stroked in the theme's foreground. */
const SYMBOL_PATHS: Record<NodeSymbol, string> = {
  router: '<circle cx="12" cy="12" r="9"/><path d="M7 9h10m-3-3 3 3-3 3M17 15H7m3-3-3 3 3 3"/>',
  switch: '<rect x="3" y="6" width="18" height="12" rx="2"/><path d="M7 10h10m-3-2 3 2-3 2M17 14H7m3-2-3 2 3 2"/>',
  server:
    '<rect x="5" y="3" width="14" height="8" rx="1"/><rect x="5" y="13" width="14" height="8" rx="1"/><path d="M8 7h1M8 17h1"/>',
  host: '<rect x="3" y="4" width="18" height="12" rx="1"/><path d="M8 20h8M12 16v4"/>',
  firewall: '<rect x="3" y="5" width="18" height="14"/><path d="M3 10h18M3 14h18M9 5v5M15 10v4M9 14v5"/>',
  generic: '<rect x="4" y="4" width="16" height="16" rx="3"/><circle cx="12" cy="12" r="2"/>',
  cloud: '<path d="M7 18h10a4 4 0 0 0 .5-8 5.5 5.5 0 0 0-10.6 1.2A3.5 3.5 0 0 0 7 18z"/>',
};

export function symbolImage(symbol: NodeSymbol, colour: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 24 24" fill="none" stroke="${colour}" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round">${SYMBOL_PATHS[symbol]}</svg>`;
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}
