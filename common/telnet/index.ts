/** The telnet layer shared by console terminals and tests. */
export { TelnetSession, TelnetOption, IAC, DO, DONT, WILL, WONT, SB, SE } from './session';
export { attachTelnet, type TelnetConnection } from './attach';
