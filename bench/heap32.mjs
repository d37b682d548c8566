// Runs a list of Python snippets, each as its own top-level call, under the MicroPython
// WebAssembly port (32-bit words), for bench/heap32.py.
//
//     node bench/heap32.mjs PACKAGE_DIR TREE_DIR STAGES_JSON HEAP_BYTES
//
// PACKAGE_DIR holds micropython.mjs (npm @micropython/micropython-webassembly-pyscript);
// TREE_DIR is copied into the port's in-memory filesystem under /fw (so /fw/fakes, /fw/lib,
// /fw/flash, as bench/heap32.py lays them out); STAGES_JSON is a JSON list of code strings.
// sys.path becomes /fw/fakes : .frozen : /fw/lib (the order of the unix port's MICROPYPATH)
// and the working directory /fw/flash.
//
// Why one runPython() call per snippet: this port's gc.collect() inside running Python code
// only marks a collection as pending (it cannot scan the WebAssembly stack for roots); the
// collection happens when the next top-level call starts. So a snippet "_mark(...)" run as
// its own call reads gc.mem_alloc() just after a real collection. Its heap also never
// fails: it grows by a new area when a collection does not free enough, so only the kept
// heap at these top-level points is comparable, not a smallest heap.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pkgDir, treeDir, stagesFile, heapArg] = process.argv.slice(2);
if (!pkgDir || !treeDir || !stagesFile) {
  console.error("usage: node heap32.mjs PACKAGE_DIR TREE_DIR STAGES_JSON [HEAP_BYTES]");
  process.exit(2);
}
const { loadMicroPython } = await import(
  pathToFileURL(path.join(pkgDir, "micropython.mjs")).href);
const out = (line) => process.stdout.write(line + "\n");
const mp = await loadMicroPython({
  heapsize: parseInt(heapArg || "4194304", 10),
  stdout: out,
  stderr: (line) => process.stderr.write(line + "\n"),
  linebuffer: true,
});

function copyTree(host, target) {
  mp.FS.mkdir(target);
  for (const entry of fs.readdirSync(host, { withFileTypes: true })) {
    const h = path.join(host, entry.name);
    const t = target + "/" + entry.name;
    if (entry.isDirectory()) copyTree(h, t);
    else if (entry.isFile()) mp.FS.writeFile(t, fs.readFileSync(h));
  }
}
copyTree(treeDir, "/fw");

const stages = JSON.parse(fs.readFileSync(stagesFile, "utf8"));
const setup = "import sys, os\nsys.path[:] = ['/fw/fakes', '.frozen', '/fw/lib']\n" +
  "os.chdir('/fw/flash')\ndel sys, os\n";
for (const code of [setup, ...stages]) {
  try {
    mp.runPython(code);
  } catch (e) {
    out("ERROR " + String(e && e.message ? e.message : e).split("\n").join(" | "));
    process.exit(1);
  }
}
