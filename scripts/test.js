// `npm test`: tap, with every failure repeated at the very end of its output. A CI log is often
// read from its tail, which tap fills with the coverage table, while a failing assertion may sit
// tens of thousands of lines above it (files finish in any order). In a terminal, tap runs as is.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The repository's own tap, also when this script is run by `node` rather than by npm.
const tap = fileURLToPath(new URL('../node_modules/.bin/tap', import.meta.url));
const args = process.argv.slice(2);
const exit = (code, signal) => process.exit(code ?? (signal ? 1 : 0));

if (process.stdout.isTTY) {
  spawn(tap, args, { stdio: 'inherit' }).on('exit', exit);
} else {
  /** Each `not ok` line with the start of its YAML diagnostics (an indented `---` ... `...` after it). */
  const failures = [];
  /** The failure being read: `yaml` once its `---` was seen. */
  let open;
  const read = (line) => {
    if (open !== undefined) {
      if (!open.yaml && line.trim() !== '---') open = undefined;
      else {
        open.yaml = true;
        if (open.lines.length < 16) open.lines.push(line);
        if (line.trim() === '...') open = undefined;
        return;
      }
    }
    if (/^\s*not ok \d+/.test(line)) {
      open = { lines: [line], yaml: false };
      failures.push(open);
    }
  };

  let partial = '';
  const child = spawn(tap, args, { stdio: ['inherit', 'pipe', 'inherit'] });
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) read(line);
  });
  child.on('close', (code, signal) => {
    read(partial);
    if (failures.length > 0) {
      // Innermost first: an assertion, then the subtests around it, then its file.
      console.log(`\n== the ${failures.length} 'not ok' lines above, repeated:`);
      for (const failure of failures) console.log(failure.lines.join('\n'));
    }
    exit(code, signal);
  });
}
