/**
 * What the quickstart plugin says when it cannot listen: a taken port names the variable that moves it
 * (a second stack, or the stack's own example plugin, may hold the default), instead of Node's stack trace.
 */
export function listenErrorMessage(err: NodeJS.ErrnoException, port: number, host: string): string {
  if (err.code === 'EADDRINUSE')
    return `port ${port} on ${host} is already in use (another plugin, or a quickstart plugin already running): set QUICKSTART_PORT to a free port, e.g. QUICKSTART_PORT=${port + 1}, and link the plugin at https://${host}:<that port>`;
  if (err.code === 'EACCES')
    return `port ${port} on ${host} needs privileges this user does not have: set QUICKSTART_PORT to a port above 1023`;
  return `cannot listen on ${host}:${port}: ${err.message}`;
}
