/** Whether something accepts TCP connections on a port of 127.0.0.1 (a node's console, the PHP server). */
import { connect } from 'node:net';

export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
