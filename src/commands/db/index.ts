import type { Command } from 'commander';
import type { CommandContext } from '../context.js';

export function registerDb(program: Command, ctx: CommandContext): void {
  const db = program.command('db').description('the shared PostgreSQL ledger of a team (only with SVC_DATABASE_URL or database-url)');
  db.command('status')
    .description('engine, database (password hidden), schema version and counts')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./status.js'), {}));
  db.command('migrate')
    .description('bring the database to this svc\'s schema (once, however many machines run it at once)')
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./migrate.js'), {}));
  db.command('import')
    .description("copy this profile's embedded records into the shared database (idempotent; conflicts reported, never overwritten)")
    .action((_flags, cmd: Command) => ctx.run(cmd, () => import('./import.js'), {}));
}
