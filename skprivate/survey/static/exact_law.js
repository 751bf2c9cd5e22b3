/*
 * Exact law of the page's samplers, by enumerating their random words.
 *
 * Loads the unmodified samplers.js in a fresh vm context in which
 *   - Uint32Array returns an array whose every element read asks this
 *     enumerator for the next random word (so samplers.js's buffer of
 *     16,384 words is filled lazily, one word per read, and
 *     crypto.getRandomValues does nothing);
 *   - Math.clz32 also tells the enumerator that a uniform draw on m values
 *     starts (uniformNumber calls Math.clz32(m - 1) before its words);
 *   - Math.floor and Math.ceil, used only by draws wider than 32 bits,
 *     stop the run: configurations must be coarse.
 * A word read while a uniform draw on m values is pending is read through
 * its top b = 32 - clz32(m - 1) bits: the enumerator branches on the m
 * accepted values (weight 1 / 2^b each) and on one rejected class (weight
 * (2^b - m) / 2^b, after which the draw is still pending).  Any other read
 * is a bit (its lowest bit is used): two branches of weight 1/2.  The bits
 * a read does not use are a filler, all zeros or all ones; each job is
 * enumerated under both fillers (the rejected class represented by its
 * smallest or largest member), and the two laws must coincide: if the code
 * used a bit the model calls unused, they would generally differ.
 *
 * Depth-first over the branches, re-running the sampler from the start for
 * each leaf.  A branch whose probability falls below 2^-tail_bits is cut,
 * and its probability added to the residual; a run's output gets its path
 * probability.  All probabilities are exact: a numerator (BigInt) over a
 * power of two.
 *
 * Node: node exact_law.js SAMPLERS.js < jobs.json > laws.json; a job is
 * {spec, value, tail_bits, max_leaves} (a release), {op: "waves", spec,
 * value, waves, ...} (the reports of several waves from one kept answer,
 * samplers.js's releaseWaves), or {op, num, den,
 * tail_bits, max_leaves} with op one of bernoulliExp, roundedLaplace,
 * discreteLaplace, geometricExp.
 */
"use strict";

const fs = require("fs");
const path = require("path");
const vm = require("vm");

class Cut extends Error {}

const PRELUDE = `(function (hooks) {
  const clz32 = Math.clz32;
  Math.clz32 = function (x) {
    hooks.announce(x >>> 0);
    return clz32(x);
  };
  Math.floor = function () {
    hooks.unsupported("a draw wider than 32 bits (Math.floor)");
  };
  Math.ceil = function () {
    hooks.unsupported("a draw wider than 32 bits (Math.ceil)");
  };
  const Base = Uint32Array;
  globalThis.Uint32Array = function (n) {
    return new Proxy(new Base(n), {
      get: function (target, key) {
        if (typeof key === "string" && /^[0-9]+$/.test(key)) return hooks.word();
        return Reflect.get(target, key, target);
      },
    });
  };
  globalThis.crypto = { getRandomValues: function (a) { return a; } };
  globalThis.module = { exports: {} };
})`;

// Largest uniform draw enumerated value by value.
const MAX_BRANCHES = 1 << 16;

function makeEnumerator() {
  const e = {
    stack: [], // per read: {choice, count}
    depth: 0,
    pending: null, // {m, bits, shift} of the uniform draw in progress
    num: 1n, // path probability num / 2^bits
    bits: 0,
    ones: false, // filler of the unused bits
    tail: 40,
    announce: function (x) {
      const shift = Math.clz32(x);
      e.pending = { m: x + 1, bits: 32 - shift, shift: shift };
    },
    unsupported: function (what) {
      throw new Error("cannot enumerate " + what + "; use a coarser configuration");
    },
    word: function () {
      // cut a branch of probability below 2^-tail
      if (e.num << BigInt(e.tail) < 1n << BigInt(e.bits)) throw new Cut();
      const d = e.depth++;
      const p = e.pending;
      let count;
      if (p === null) count = 2;
      else {
        if (p.m > MAX_BRANCHES) e.unsupported("a uniform draw on " + p.m + " values");
        count = p.m < 2 ** p.bits ? p.m + 1 : p.m;
      }
      if (d === e.stack.length) e.stack.push({ choice: 0, count: count });
      const node = e.stack[d];
      if (node.count !== count) throw new Error("the sampler is not deterministic");
      const c = node.choice;
      if (p === null) {
        e.bits += 1;
        return e.ones ? 0xfffffffe + c : c;
      }
      const span = 2 ** p.bits;
      const low = e.ones ? 2 ** p.shift - 1 : 0;
      e.bits += p.bits;
      if (c < p.m) {
        e.pending = null;
        return c * 2 ** p.shift + low;
      }
      e.num *= BigInt(span - p.m);
      const r = e.ones ? span - 1 : p.m;
      return r * 2 ** p.shift + low;
    },
  };
  return e;
}

function load(source, hooks) {
  const context = vm.createContext({});
  vm.runInContext(PRELUDE, context)(hooks);
  vm.runInContext(source, context, { filename: "samplers.js" });
  return context.module.exports;
}

function addTo(acc, key, num, bits) {
  let a = acc[key];
  if (a === undefined) a = acc[key] = { num: 0n, bits: 0 };
  if (bits > a.bits) {
    a.num <<= BigInt(bits - a.bits);
    a.bits = bits;
  }
  a.num += num << BigInt(a.bits - bits);
}

function keyOf(out) {
  return JSON.stringify(out, (k, v) => (typeof v === "bigint" ? v.toString() : v));
}

// One draw of the job: a release, or a coin or noise of the building blocks.
function run(S, job) {
  switch (job.op || "release") {
    case "release":
      return S.release(job.spec, job.value);
    case "waves":
      return S.releaseWaves(job.spec, job.value, job.waves);
    case "bernoulliExp":
    case "roundedLaplace":
    case "discreteLaplace":
    case "geometricExp":
      return S[job.op](BigInt(job.num), BigInt(job.den));
    default:
      throw new Error("unknown job " + job.op);
  }
}

// The law of S.release(spec, value) with the unused bits filled by `ones`.
function enumerate(S, e, job, ones) {
  e.stack = [];
  e.ones = ones;
  e.tail = job.tail_bits;
  const law = {};
  const residual = {};
  let leaves = 0;
  let deepest = 0;
  for (;;) {
    e.depth = 0;
    e.pending = null;
    e.num = 1n;
    e.bits = 0;
    try {
      const out = run(S, job);
      addTo(law, keyOf(out), e.num, e.bits);
    } catch (err) {
      if (!(err instanceof Cut)) throw err;
      addTo(residual, "cut", e.num, e.bits);
      e.stack.length = e.depth; // the cut read has no node
    }
    leaves += 1;
    deepest = Math.max(deepest, e.depth);
    if (leaves > job.max_leaves) {
      throw new Error("more than " + job.max_leaves + " leaves; raise tail_bits' cut");
    }
    while (e.stack.length && e.stack[e.stack.length - 1].choice === e.stack[e.stack.length - 1].count - 1) {
      e.stack.pop();
    }
    if (!e.stack.length) break;
    e.stack[e.stack.length - 1].choice += 1;
  }
  const text = (a) => [a.num.toString(), a.bits];
  const result = { law: {}, residual: residual.cut ? text(residual.cut) : ["0", 0] };
  for (const k of Object.keys(law)) result.law[k] = text(law[k]);
  result.leaves = leaves;
  result.deepest = deepest;
  return result;
}

function runJobs(samplersPath, jobs) {
  const source = fs.readFileSync(samplersPath, "utf8");
  const e = makeEnumerator();
  const S = load(source, e);
  return jobs.map(function (job) {
    return {
      zeros: enumerate(S, e, job, false),
      ones: enumerate(S, e, job, true),
    };
  });
}

if (require.main === module) {
  const chunks = [];
  process.stdin.on("data", (c) => chunks.push(c));
  process.stdin.on("end", function () {
    const jobs = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    try {
      process.stdout.write(JSON.stringify(runJobs(path.resolve(process.argv[2]), jobs)));
    } catch (err) {
      process.stderr.write(String(err && err.message ? err.message : err) + "\n");
      process.exit(2);
    }
  });
}
