// Entry point of the compaction benchmark's measuring child process (built to
// dist/bench/compaction_child.js; never imported): a fresh node whose peak RSS is the
// compaction's alone, not the input generator's. Takes the MeasureInput as JSON in argv[2],
// runs the compaction and prints the MeasuredRun as JSON on the last line of stdout.
import { measureCompaction, type MeasureInput } from './compaction_run.js';

const arg = process.argv[2];
if (arg === undefined) {
  process.stderr.write('usage: compaction_child.js <MeasureInput as JSON>\n');
  process.exit(2);
}
const input = JSON.parse(arg) as MeasureInput;
const result = await measureCompaction(input, 'child process');
process.stdout.write(JSON.stringify(result) + '\n');
