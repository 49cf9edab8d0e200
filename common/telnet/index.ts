/** The telnet layer shared by console terminals and tests. */
export { TelnetProtocol, TelnetOption, IAC, DO, DONT, WILL, WONT, SB, SE } from './protocol';
export { attachTelnet, type TelnetConnection } from './attach';
