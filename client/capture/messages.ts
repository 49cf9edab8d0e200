/**
 * What the extension host and the live packet list (client/capture/webview/)
 * say to each other. No runtime code and no `vscode` import: the webview
 * bundle compiles against it too.
 */
import type { PacketRow } from './packet-rows';

/** Host → webview. */
export type PacketHostMessage =
  /** New rows, oldest first; `total` counts every row tshark has decoded with the current filter. */
  | { type: 'rows'; rows: PacketRow[]; total: number }
  /** The filter changed: the list starts again (tshark reads the file from its first packet). */
  | { type: 'clear'; filter: string }
  /** One line about the capture: running, stopped, and why; `running` shows or hides Stop. */
  | { type: 'status'; text: string; running: boolean }
  /** What keeps packets from showing (no tshark, a bad display filter); empty: nothing. */
  | { type: 'problem'; text: string }
  /** What the filter box does (a Wireshark display filter, or a text match over the agent's rows). */
  | { type: 'filterHint'; text: string };

/** Webview → host. */
export type PacketWebviewMessage =
  | { type: 'ready' }
  | { type: 'stop' }
  /** A Wireshark display filter (`ospf`, `icmp && ip.src == 10.0.0.1`) or a text (filterHint says which); empty: every packet. */
  | { type: 'filter'; filter: string }
  | { type: 'revealFile' };
