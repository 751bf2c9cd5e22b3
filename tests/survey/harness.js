/*
 * Runs draws of the page's samplers for the tests, in Node or in a browser.
 *
 * A job is {op, n, ...}: "release" (spec, value) or one of the building
 * blocks ("uniformNumber" m, "uniformBig" m, "bernoulliExp" num/den,
 * "geometricExp" s/t, "roundedLaplace" num/den, "discreteLaplace" num/den).
 * Results are JSON-ready (BigInts as Numbers: the tests keep them small).
 *
 * Node: node harness.js SAMPLERS.js < jobs.json > results.json
 */
(function (root) {
  "use strict";

  function runJob(S, job) {
    const n = job.n;
    const out = new Array(n);
    switch (job.op) {
      case "release":
        return S.releaseMany(job.spec, job.value, n);
      case "uniformNumber":
        for (let i = 0; i < n; i++) out[i] = S.uniformNumber(job.m);
        return out;
      case "uniformBig": {
        const m = BigInt(job.m);
        const shift = BigInt(job.shift || 0);
        for (let i = 0; i < n; i++) out[i] = Number(S.uniformBig(m) >> shift);
        return out;
      }
      case "bernoulliExp": {
        const num = BigInt(job.num);
        const den = BigInt(job.den);
        let hits = 0;
        for (let i = 0; i < n; i++) if (S.bernoulliExp(num, den)) hits++;
        return hits;
      }
      case "geometricExp":
      case "roundedLaplace":
      case "discreteLaplace": {
        const a = BigInt(job.num);
        const b = BigInt(job.den);
        const f = S[job.op];
        for (let i = 0; i < n; i++) out[i] = Number(f(a, b));
        return out;
      }
      default:
        throw new Error("unknown job " + job.op);
    }
  }

  function runJobs(S, jobs) {
    return jobs.map(function (job) {
      return runJob(S, job);
    });
  }

  if (typeof module !== "undefined" && module.exports) {
    module.exports = runJobs;
    if (require.main === module) {
      const S = require(require("path").resolve(process.argv[2]));
      const chunks = [];
      process.stdin.on("data", (c) => chunks.push(c));
      process.stdin.on("end", function () {
        const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        process.stdout.write(JSON.stringify(runJobs(S, jobs)));
      });
    }
  } else {
    root.runSamplerJobs = runJobs;
  }
})(typeof globalThis !== "undefined" ? globalThis : this);
