/**
 * The webview page's markup, which client/topology/webview/main.ts fills in.
 * Shared by the panel and the benchmark page (test/bench/topology.ts), so both
 * run the bundle on the same page.
 */
export const PAGE_BODY = `<header>
<span id="status" role="status" aria-live="polite">Reading the lab…</span>
<button type="button" id="fit" title="Fit the whole lab in view">Fit</button>
</header>
<div id="notes" role="alert" hidden></div>
<div id="hint" role="status" hidden></div>
<main>
<div id="graph" aria-hidden="true"></div>
<nav id="elements" aria-label="Lab elements"></nav>
</main>
<div id="menu" hidden></div>`;
