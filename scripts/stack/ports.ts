import net from 'node:net';
import { PORT_VARS, type PortName } from './config';

/** Resolves null when the port can be bound on all interfaces, else the error code (EADDRINUSE, EACCES…). */
function tryBind(port: number, host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/** Fails with one clear line per busy port, naming the variable that moves it; `unused` ports are not checked. */
export async function checkPortsFree(ports: Record<PortName, number>, unused: PortName[] = []): Promise<void> {
  const problems: string[] = [];
  for (const [name, port] of Object.entries(ports) as [PortName, number][]) {
    if (unused.includes(name)) continue;
    const code = (await tryBind(port, '127.0.0.1')) ?? (await tryBind(port, '0.0.0.0'));
    if (code === 'EADDRINUSE')
      problems.push(
        `port ${port} is already in use: set ${PORT_VARS[name]} to a free port (e.g. ${PORT_VARS[name]}=${port + 100})`,
      );
    else if (code) problems.push(`port ${port} cannot be used (${code}): set ${PORT_VARS[name]} to another port`);
  }
  if (problems.length) throw new Error(problems.join('\n'));
}
