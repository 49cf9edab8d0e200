/**
 * The live packet list (bundled to dist/packets.js): appends the rows the host
 * sends, keeps the newest ROW_CAP in the table (older ones are in the file),
 * follows the newest unless scrolling is paused, and sends Stop and the
 * display filter to the host. Rows are text only (textContent, never HTML).
 */
import type { PacketHostMessage, PacketWebviewMessage } from '../messages';
import { ROW_CAP, type PacketRow } from '../packet-rows';
import { element, messagesToHost } from '../../webview-page/dom';

/** `19:30:05.123` (UTC) from tshark's seconds since the epoch. */
function timeOfDay(epoch: string): string {
  const ms = Number(epoch) * 1000;
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 23) : epoch;
}

function rowElement(row: PacketRow): HTMLTableRowElement {
  const tr = document.createElement('tr');
  const cells = [
    String(row.no),
    timeOfDay(row.time),
    row.interface,
    row.source,
    row.destination,
    row.protocol,
    row.info,
  ];
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.appendChild(td);
  }
  tr.dataset.protocol = row.protocol.toLowerCase();
  return tr;
}

function main(): void {
  const post = messagesToHost<PacketWebviewMessage>();
  const body = element<HTMLTableElement>('packets').tBodies[0];
  const scroller = element('scroller');
  const status = element('status');
  const problem = element('problem');
  const stop = element<HTMLButtonElement>('stop');
  const pause = element<HTMLInputElement>('pause');
  const filter = element<HTMLInputElement>('filter');
  let total = 0;

  const counted = (): void => {
    // For tests: how many rows the list holds, and how many were decoded.
    document.body.dataset.rows = String(body.rows.length);
    document.body.dataset.total = String(total);
  };

  stop.addEventListener('click', () => post({ type: 'stop' }));
  element('file').addEventListener('click', () => post({ type: 'revealFile' }));
  filter.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') post({ type: 'filter', filter: filter.value });
  });
  pause.addEventListener('change', () => {
    if (!pause.checked) scroller.scrollTop = scroller.scrollHeight;
  });

  window.addEventListener('message', (event: MessageEvent<PacketHostMessage>) => {
    const message = event.data;
    if (message.type === 'rows') {
      const fragment = document.createDocumentFragment();
      for (const row of message.rows.slice(-ROW_CAP)) fragment.appendChild(rowElement(row));
      body.appendChild(fragment);
      const excess = body.rows.length - ROW_CAP;
      for (let i = 0; i < excess; i++) body.deleteRow(0);
      total = message.total;
      if (!pause.checked) scroller.scrollTop = scroller.scrollHeight;
      counted();
    } else if (message.type === 'clear') {
      body.replaceChildren();
      total = 0;
      filter.value = message.filter;
      counted();
    } else if (message.type === 'status') {
      status.textContent = message.text;
      stop.hidden = !message.running;
      document.body.dataset.running = String(message.running);
    } else if (message.type === 'problem') {
      problem.textContent = message.text;
      problem.hidden = message.text === '';
    } else if (message.type === 'filterHint') {
      filter.placeholder = message.text;
      filter.title = message.text;
    }
  });
  counted();
  post({ type: 'ready' });
}

main();
