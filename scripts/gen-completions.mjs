// Regenerates completions/ from the built CLI (`npm run gen:completions` builds first), so the
// committed scripts are exactly what `svc completion SHELL` prints. test/completion/drift
// fails when they fall behind the command tree.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

process.chdir(new URL('..', import.meta.url).pathname);
const files = { bash: 'completions/svc.bash', zsh: 'completions/_svc', fish: 'completions/svc.fish' };

mkdirSync('completions', { recursive: true });
for (const [shell, file] of Object.entries(files)) {
  const script = execFileSync(process.execPath, ['bin/svc.js', 'completion', shell], { encoding: 'utf8' });
  writeFileSync(file, script);
  console.log(`wrote ${file}`);
}
