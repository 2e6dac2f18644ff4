// Why a server of svc's could not listen (`webhook listen`'s two ports, `sandbox start`), in
// words that name the flag to change, with the exit code a supervisor can act on: a port
// another process holds is a conflict (7, as a lock held elsewhere), an address that is not
// this machine's or a port it may not use is invalid input (2); anything else is a failure (1).
import { ConflictError, SvcError, UsageError } from '../errors.js';

export interface BindFlags {
  /** The flag that chose the port, e.g. --port or --admin-port. */
  port: string;
  /** The flag that chose the address, e.g. --host or --admin-host. */
  host: string;
}

export function bindError(error: Error, host: string, port: number, flags: BindFlags): SvcError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new ConflictError(`${flags.port}: port ${port} is in use`, { hint: `stop what is using it, or pick another with ${flags.port} (0 picks a free one)`, cause: error });
  }
  if (code === 'EACCES') return new UsageError(`${flags.port}: not allowed to listen on ${host}:${port}`, { hint: `use a port above 1023 with ${flags.port}`, cause: error });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new UsageError(`${flags.host}: ${host} is not an address of this machine`, { hint: `use ${flags.host} 127.0.0.1`, cause: error });
  }
  return new SvcError(`cannot listen on ${host}:${port} (${code ?? error.message})`, { cause: error });
}
