// Preloaded into the service by `npm run bench -- --cpu-prof=<dir>`: the first SIGUSR2 starts V8's sampling profiler,
// the next writes what it sampled to <dir>/<n>.cpuprofile (open it in Chrome's DevTools, Performance tab), and so on.
// The harness sends them around each measured run, so each file holds one scenario's load and nothing else.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const directory = process.env.BENCH_CPU_PROFILE_DIR;
// npm runs under the same NODE_OPTIONS; only the server is profiled.
if (directory && process.argv[1]?.endsWith("server.mjs")) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  let profiling = false;
  let written = 0;
  process.on("SIGUSR2", () => {
    if (!profiling) {
      session.post("Profiler.start");
      profiling = true;
      return;
    }
    session.post("Profiler.stop", (error, result) => {
      profiling = false;
      if (error) return console.error("cpu profile:", error.message);
      writeFileSync(path.join(directory, `${++written}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
