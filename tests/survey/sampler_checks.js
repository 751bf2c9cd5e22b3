/*
 * Exact checks of the page's samplers: the judge of their mutation testing
 * (benchmarks/mutation_js.py, one run per mutant) and of
 * tests/survey/test_mutation_js.py.
 *
 *   node sampler_checks.js SAMPLERS.js CHECKS.json
 *
 * Two kinds of check, both exact (no sampling):
 *
 * - law checks, listed in CHECKS.json: {name, job, tail_bits, max_residual,
 *   expected, other}.  The job (a release or a building block, as
 *   exact_law.js takes it) is enumerated by exact_law.js; its law must agree
 *   with `expected` (output key -> [lo, hi], rationals "p/q" enclosing the
 *   claimed probability; outputs not listed have a probability in
 *   [0, other]): every output's enumerated bounds [a, a + residual] must meet
 *   its claimed enclosure, the residual must stay below max_residual, and the
 *   laws under both fillers of the unused bits must coincide.
 * - scripted-word checks, below: samplers.js runs on a fixed sequence of
 *   random words, and each draw must return exactly the value those words
 *   determine.  They cover what the enumeration cannot: the word buffer,
 *   draws wider than 32 bits (the frequency questions' 62-bit coins, at
 *   their boundaries), rint, copies of a kept answer, and the errors.
 *
 * Under Stryker's mutant switching, the active mutant is read from the
 * environment (__STRYKER_ACTIVE_MUTANT__) and handed to samplers.js, which
 * runs inside vm contexts that have no `process`.
 *
 * CHECKS.json is {laws: [...], scripted: true | false | i}: the scripted
 * checks run first (true), not at all (false) or before law check i.
 *
 * Exit status 0: every check passed; 1: a check failed (its name and the
 * difference on stdout, as "FAIL <name>: ..."); 2: the checks could not run.
 */
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const vm = require("vm");
const Module = require("module");

class Failure extends Error {}

function fail(name, what) {
  throw new Failure("FAIL " + name + ": " + what);
}

// -- the samplers' source, with the active mutant (if any) switched on ---------
function samplersSource(file) {
  const source = fs.readFileSync(file, "utf8");
  const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
  if (mutant === undefined) return source;
  return "globalThis.__stryker__ = { activeMutant: " + JSON.stringify(mutant) + " };\n" + source;
}

// exact_law.js's runJobs, without running its command line.
function loadEnumerator(file) {
  const source = fs.readFileSync(file, "utf8") + "\nmodule.exports.runJobs = runJobs;\n";
  const wrapper = vm.runInThisContext(Module.wrap(source), { filename: file });
  const mod = { exports: {} };
  wrapper(mod.exports, require, mod, file, path.dirname(file));
  return mod.exports.runJobs;
}

// -- exact rationals --------------------------------------------------------------
function ratio(text) {
  const parts = String(text).split("/");
  return [BigInt(parts[0]), BigInt(parts.length > 1 ? parts[1] : "1")];
}

// a / 2^abits compared with p / q: -1, 0 or 1
function cmpDyadic(a, abits, pq) {
  const left = a * pq[1];
  const right = pq[0] << BigInt(abits);
  return left < right ? -1 : left > right ? 1 : 0;
}

function dyadicText(num, bits) {
  return num.toString() + "/2^" + bits;
}

// Output keys of exact_law.js, canonical: BigInt outputs (given as decimal
// strings) become numbers, so that the claimed laws can name them plainly.
function canonical(name, key) {
  const norm = (v) =>
    Array.isArray(v) ? v.map(norm) : typeof v === "string" && /^-?[0-9]+$/.test(v) ? Number(v) : v;
  let value;
  try {
    value = JSON.parse(key);
  } catch (err) {
    fail(name, "an output is not a value (" + key + ")");
  }
  return JSON.stringify(norm(value));
}

function sameEnumeration(x, y) {
  return JSON.stringify(x) === JSON.stringify(y);
}

function checkLaw(runJobs, samplersFile, check) {
  const job = Object.assign({}, check.job, {
    tail_bits: check.tail_bits,
    max_leaves: check.max_leaves || 2000000,
  });
  let result;
  try {
    result = runJobs(samplersFile, [job])[0];
  } catch (err) {
    fail(check.name, "the enumeration stopped: " + (err && err.message ? err.message : err));
  }
  if (!sameEnumeration(result.zeros, result.ones)) {
    fail(check.name, "the law depends on bits the enumeration treats as unused");
  }
  const r = result.zeros;
  const residual = BigInt(r.residual[0]);
  const rbits = r.residual[1];
  // every probability as a numerator over 2^bits
  let bits = rbits;
  for (const k of Object.keys(r.law)) bits = Math.max(bits, r.law[k][1]);
  const scaled = (pair) => BigInt(pair[0]) << BigInt(bits - pair[1]);
  const res = residual << BigInt(bits - rbits);
  const law = {};
  let total = res;
  for (const k of Object.keys(r.law)) {
    const key = canonical(check.name, k);
    law[key] = (law[key] || 0n) + scaled(r.law[k]);
    total += scaled(r.law[k]);
  }
  if (total !== 1n << BigInt(bits)) fail(check.name, "the enumerated probabilities do not add to 1");
  if (cmpDyadic(res, bits, ratio(check.max_residual)) > 0) {
    fail(check.name, "residual " + dyadicText(res, bits) + " above " + check.max_residual);
  }
  const keys = new Set(Object.keys(law).concat(Object.keys(check.expected)));
  for (const key of keys) {
    const a = law[key] || 0n;
    const claim = check.expected[key] || ["0", check.other || "0"];
    const lo = ratio(claim[0]);
    const hi = ratio(claim[1]);
    if (cmpDyadic(a, bits, hi) > 0 || cmpDyadic(a + res, bits, lo) < 0) {
      fail(
        check.name,
        "output " + key + " has probability in [" + dyadicText(a, bits) + ", " +
          dyadicText(a + res, bits) + "], claimed [" + claim[0] + ", " + claim[1] + "]"
      );
    }
  }
}

// -- scripted words ---------------------------------------------------------------
// samplers.js in a fresh context whose crypto.getRandomValues fills each
// request from `words` in order (then from a counter, to see the refills).
function scripted(source, words) {
  const state = { next: 0, calls: [] };
  const context = vm.createContext({
    Uint32Array: Uint32Array,
    BigInt: BigInt,
    module: { exports: {} },
    crypto: {
      getRandomValues: function (a) {
        if (!(a instanceof Uint32Array)) throw new TypeError("getRandomValues wants a Uint32Array");
        state.calls.push(a.length);
        // a draw that never ends (a broken rejection loop) fails, not hangs
        if (state.next > 1 << 20) throw new Failure("FAIL scripted words: over 2^20 words drawn");
        for (let i = 0; i < a.length; i++) {
          const w = state.next < words.length ? words[state.next] : (state.next * 2654435761) >>> 0;
          a[i] = w >>> 0;
          state.next += 1;
        }
        return a;
      },
    },
  });
  vm.runInContext(source, context, { filename: "samplers.js" });
  return { S: context.module.exports, state: state };
}

function expectEqual(name, got, want) {
  const g = JSON.stringify(got, (k, v) => (typeof v === "bigint" ? v.toString() + "n" : v));
  const w = JSON.stringify(want, (k, v) => (typeof v === "bigint" ? v.toString() + "n" : v));
  if (g !== w) fail(name, "got " + g + ", expected " + w);
}

function expectThrow(name, fn, type, message) {
  try {
    fn();
  } catch (err) {
    if (err instanceof Failure) throw err;
    const got = (err && err.constructor && err.constructor.name) + ": " + (err && err.message);
    if (got !== type + ": " + message) fail(name, "threw " + got + ", expected " + type + ": " + message);
    return;
  }
  fail(name, "returned instead of throwing " + type);
}

const TWO32 = 4294967296;

// Words that make uniformBig(2^62) draw r: 30 top bits of a first word,
// then a whole word.
function coinWords(r) {
  return [Number(r >> 32n) * 4, Number(r & 0xffffffffn)];
}
const TWO62 = "4611686018427387904";
const KEEP62 = (1n << 61n) + 12345n;
const ONE62 = (1n << 61n) - 7n;
const ZERO62 = (1n << 60n) + 3n;
const KRR62 = { kind: "frequency", oracle: "krr", k: 3, memoized: false, stages: [{ keep: KEEP62 + "/" + TWO62 }] };
const MEMO62 = Object.assign({}, KRR62, { memoized: true, stages: [KRR62.stages[0], { keep: "1/2" }] });
const OUE62 = {
  kind: "frequency",
  oracle: "oue",
  k: 2,
  memoized: false,
  stages: [{ one: ONE62 + "/" + TWO62, zero: ZERO62 + "/" + TWO62 }],
};

// Local hashing and Hadamard response (one stage): the 62-bit keep coin, and
// a prime of 2^24 + 43, the first above the largest number of categories of
// local hashing, whose seeds (P - 1) P (about 2^48) take two words.
const OLH62 = {
  kind: "frequency",
  oracle: "olh",
  k: 3,
  memoized: false,
  stages: [{ keep: KEEP62 + "/" + TWO62 }],
  prime: 3,
  buckets: 3,
};
const HR62 = { kind: "frequency", oracle: "hr", k: 3, memoized: false, stages: OLH62.stages, order: 4 };
const BIG_P = 16777259;
const BIG = { kind: "frequency", oracle: "olh", k: BIG_P, memoized: false, stages: [{ keep: "1" }], prime: BIG_P, buckets: 5 };
// seed -> the two words uniformNumber((P - 1) P) reads for it (15 top bits
// of the first word, then a whole word)
function bigSeedWords(seed) {
  return [Math.floor(seed / TWO32) * 32768, seed % TWO32];
}
// [seed, code, h_s(code)] from skprivate.frequency._hashing.hash_values
const BIG_HASHES = [
  [281476402775821, 16777258, 0],
  [281476402775821, 16777257, 1],
  [281476402775820, 12345678, 4],
  [123456789012345, 16777258, 3],
  [281476385998570, 16777000, 1],
  [0, 16777258, 3],
  [16777259, 1, 2],
];

// Each case: [name, words, draw(S, state) -> value, expected value].
const SCRIPTED = [
  [
    // 2^32 values: each draw is one whole word; the buffer holds 16,384
    // words, is filled only when used up, and never serves a word twice
    "buffer: whole words, refilled every 16,384 reads",
    [],
    function (S, state) {
      const out = [];
      for (let i = 0; i < 2 * 16384 + 3; i++) out.push(S.uniformNumber(TWO32));
      const expected = out.map((_, i) => (i * 2654435761) >>> 0);
      return [JSON.stringify(out) === JSON.stringify(expected), state.calls];
    },
    [true, [16384, 16384, 16384]],
  ],
  ["buffer: nothing drawn before the first use", [], (S, state) => state.calls.length, 0],
  ["uniformNumber(1) reads no word", [], (S, state) => [S.uniformNumber(1), state.next], [0, 0]],
  // m = 6: the top 3 bits of each word; 6 and 7 are rejected
  ["uniformNumber(6) top bits", [0xbfffffff], (S) => S.uniformNumber(6), 5],
  ["uniformNumber(6) rejects 6 and 7", [0xc0000000, 0xe0000000, 0x3fffffff], (S) => S.uniformNumber(6), 1],
  ["uniformNumber(2^32) keeps the whole word", [0xffffffff], (S) => S.uniformNumber(TWO32), TWO32 - 1],
  // m = 2^32 + 3: high = 1, one top bit of a first word, then a whole word
  ["uniformNumber(2^32+3) high value", [0x80000000, 2], (S) => S.uniformNumber(TWO32 + 3), TWO32 + 2],
  ["uniformNumber(2^32+3) ignores the low bits of the first word", [0x7fffffff, 0xffffffff], (S) => S.uniformNumber(TWO32 + 3), TWO32 - 1],
  ["uniformNumber(2^32+3) rejects m", [0xffffffff, 3, 0, 7], (S) => S.uniformNumber(TWO32 + 3), 7],
  ["uniformNumber(2^32+4) accepts m - 1", [0x80000000, 3], (S) => S.uniformNumber(TWO32 + 4), TWO32 + 3],
  // m = 2^53: 21 top bits of a first word, then a whole word; never rejects
  ["uniformNumber(2^53) largest", [0xffffffff, 0xffffffff], (S) => S.uniformNumber(2 ** 53), 2 ** 53 - 1],
  ["uniformNumber(2^53) first word's bit 11", [0x00000800, 5], (S) => S.uniformNumber(2 ** 53), TWO32 + 5],
  // m = 3 * 2^70: 72 bits, three words, 8 top bits of the first
  ["uniformBig(3*2^70) largest", [0xbfffffff, 0xffffffff, 0xffffffff], (S) => S.uniformBig(3n << 70n), (3n << 70n) - 1n],
  ["uniformBig(3*2^70) rejects m", [0xc0000000, 0, 0, 0x01ffffff, 1, 2], (S) => S.uniformBig(3n << 70n), (1n << 64n) + (1n << 32n) + 2n],
  // m = 2^53 + 1: 54 bits, two words, 22 top bits of the first
  ["uniformBig(2^53+1) largest", [0x80000000, 0], (S) => S.uniformBig((1n << 53n) + 1n), 1n << 53n],
  ["uniformBig(2^53+1) rejects m", [0x80000000, 1, 0x000003ff, 9], (S) => S.uniformBig((1n << 53n) + 1n), 9n],
  ["uniformBig(3) small", [0x80000000], (S) => S.uniformBig(3n), 2n],
  ["bernoulli(2, 3)", [0x40000000, 0x80000000], (S) => [S.bernoulli(2n, 3n), S.bernoulli(2n, 3n)], [true, false]],
  // releaseMany: n releases; a one-subset conditional design draws no word
  [
    "releaseMany(3)",
    [],
    (S) => S.releaseMany({ kind: "subset", p: 2, design: "conditional", subsets: [[1, 1]], weights: ["1"], total: "1", dummies: false }, 1, 3),
    [[1, 1], [1, 1], [1, 1]],
  ],
  // frequency questions on the privatizers' 62-bit coins, at the coin's
  // boundary: r = numerator - 1 is a hit, r = numerator a miss
  ["krr 62-bit coin: r = keep - 1 keeps", coinWords(KEEP62 - 1n), (S) => S.release(KRR62, 0), 0],
  ["krr 62-bit coin: r = keep draws another", coinWords(KEEP62).concat([0x80000000]), (S) => S.release(KRR62, 0), 2],
  ["krr 62-bit coin: another below the input", coinWords(KEEP62).concat([0]), (S) => S.release(KRR62, 2), 0],
  [
    "unary 62-bit coins at their boundaries",
    coinWords(ONE62 - 1n).concat(coinWords(ZERO62), coinWords(ONE62), coinWords(ZERO62 - 1n)),
    (S) => [S.release(OUE62, 0), S.release(OUE62, 0)],
    [[1, 0], [0, 1]],
  ],
  [
    "memoized krr: the second stage randomizes the kept answer",
    coinWords(KEEP62).concat([0, 0xffffffff, 0x80000000, 0, 0]),
    (S) => {
      const kept = S.permanent(MEMO62, 0);
      return [kept, S.instant(MEMO62, kept), S.instant(MEMO62, kept)];
    },
    // kept: miss, another = 1; instant: keep 1/2 (top bit 1: miss), other 1
    // of {0, 2} (top bit 1: 2); then keep (top bit 0): 1
    [1, 2, 1],
  ],
  [
    "waves of a plain unary question: equal copies, not the kept array",
    coinWords(ONE62).concat(coinWords(ZERO62 - 1n)),
    (S) => {
      const out = S.releaseWaves(OUE62, 0, 2);
      return [out, out[0] !== out[1]];
    },
    [[[0, 1], [0, 1]], true],
  ],
  // seed 5 of 6 (top 3 bits 101): a = 2, b = 2, h(0) = 2 and h(2) = 0
  ["olh 62-bit coin: r = keep - 1 keeps the bucket", [0xa0000000].concat(coinWords(KEEP62 - 1n)), (S) => S.release(OLH62, 0), [5, 2]],
  ["olh 62-bit coin: r = keep moves it, above", [0xa0000000].concat(coinWords(KEEP62), [0]), (S) => S.release(OLH62, 0), [5, 0]],
  ["olh 62-bit coin: r = keep moves it, past the bucket", [0xa0000000].concat(coinWords(KEEP62), [0x80000000]), (S) => S.release(OLH62, 2), [5, 2]],
  ["olh seed 0 and the last seed", [0].concat(coinWords(0n), [0xbfffffff], coinWords(0n)), (S) => [S.release(OLH62, 1), S.release(OLH62, 1)], [[0, 1], [5, 1]]],
  ["olh seeds of 2^48: the largest seed", bigSeedWords(281476402775821), (S) => S.release(BIG, 16777258), [281476402775821, 0]],
  ["olh seeds of 2^48: a seed above 2^32", bigSeedWords(123456789012345), (S) => S.release(BIG, 16777258), [123456789012345, 3]],
  ["olh exact hashes at P = 2^24 + 43", [], (S) => BIG_HASHES.map((t) => S.hashBucket(BIG, t[0], t[1])), BIG_HASHES.map((t) => t[2])],
  // index 3 (top 2 bits 11): outside row 1's half, inside row 3's
  ["hr 62-bit coin: r = keep - 1 moves into the half", [0xc0000000].concat(coinWords(KEEP62 - 1n)), (S) => S.release(HR62, 0), 2],
  ["hr 62-bit coin: r = keep stays outside", [0xc0000000].concat(coinWords(KEEP62)), (S) => S.release(HR62, 0), 3],
  ["hr 62-bit coin: r = keep - 1 stays inside", [0xc0000000].concat(coinWords(KEEP62 - 1n)), (S) => S.release(HR62, 2), 3],
  ["hr 62-bit coin: r = keep moves out", [0xc0000000].concat(coinWords(KEEP62)), (S) => S.release(HR62, 2), 2],
  [
    "waves of a plain olh question: equal copies, not the kept array",
    [0xa0000000].concat(coinWords(KEEP62 - 1n)),
    (S) => {
      const out = S.releaseWaves(OLH62, 0, 2);
      return [out, out[0] !== out[1]];
    },
    [[[5, 2], [5, 2]], true],
  ],
  ["rint rounds half to even", [], (S) => [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, -2.6, 7].map((v) => S.rint(v) + 0), [0, 2, 2, 0, -2, -2, 2, 3, -3, 7]],
];

const ERRORS = [
  ["uniformNumber(0)", (S) => S.uniformNumber(0), "RangeError", "uniformNumber needs an integer 1 <= m <= 2**53"],
  ["uniformNumber(2^53 + 2)", (S) => S.uniformNumber(2 ** 53 + 2), "RangeError", "uniformNumber needs an integer 1 <= m <= 2**53"],
  ["uniformNumber(2.5)", (S) => S.uniformNumber(2.5), "RangeError", "uniformNumber needs an integer 1 <= m <= 2**53"],
  ["release of an unknown kind", (S) => S.release({ kind: "oracle" }, 1), "Error", "no on-device sampler for oracle"],
  [
    "rvns with an unknown placement",
    (S) => S.release({ kind: "rvns", ja: 0, jb: 4, band: 1, k: 1, step: 1, placement: "middle" }, 1),
    "Error",
    "unknown band placement middle",
  ],
  ["krr category k", (S) => S.release(KRR62, 3), "RangeError", "frequency question: category index out of range"],
  ["krr category negative", (S) => S.release(KRR62, -1), "RangeError", "frequency question: category index out of range"],
  ["krr category not an integer", (S) => S.release(KRR62, 1.5), "RangeError", "frequency question: category index out of range"],
  ["unary category k", (S) => S.release(OUE62, 2), "RangeError", "frequency question: category index out of range"],
  ["olh category k", (S) => S.release(OLH62, 3), "RangeError", "frequency question: category index out of range"],
  ["hr category negative", (S) => S.release(HR62, -1), "RangeError", "frequency question: category index out of range"],
  [
    "memoized olh",
    (S) => S.release(Object.assign({}, OLH62, { memoized: true }), 0),
    "Error",
    "frequency question: olh has no memoized form",
  ],
  ["memoized hr kept answer", (S) => S.permanent(Object.assign({}, HR62, { memoized: true }), 0), "Error", "frequency question: hr has no memoized form"],
  [
    "olh seeds beyond 2^53",
    (S) => S.release(Object.assign({}, OLH62, { prime: 94906267 }), 0),
    "RangeError",
    "local hashing: (P - 1) P must be a safe integer",
  ],
  ["kept answer of an unknown kind", (S) => S.permanent({ kind: "oracle" }, 1), "Error", "no on-device sampler for oracle"],
  [
    "subset category out of range",
    (S) => S.release({ kind: "subset", p: 3, design: "uniform", sizes: [1, 2], dummies: false }, 3),
    "RangeError",
    "category index out of range",
  ],
  [
    "subset category not an integer",
    (S) => S.release({ kind: "subset", p: 3, design: "uniform", sizes: [1, 2], dummies: false }, 0.5),
    "RangeError",
    "category index out of range",
  ],
  [
    "subset category negative",
    (S) => S.release({ kind: "subset", p: 3, design: "uniform", sizes: [1, 2], dummies: false }, -1),
    "RangeError",
    "category index out of range",
  ],
];

// In a page (no module system) the samplers are a global.
function checkGlobal(source) {
  const context = vm.createContext({ crypto: { getRandomValues: (a) => a } });
  try {
    vm.runInContext(source, context, { filename: "samplers.js" });
  } catch (err) {
    fail("loads without a module system", "threw " + (err && err.message));
  }
  const S = context.SKPrivateSamplers;
  expectEqual("loads without a module system", S && typeof S.release, "function");
}

function checkScripted(source) {
  checkGlobal(source);
  for (const [name, words, draw, want] of SCRIPTED) {
    const { S, state } = scripted(source, words);
    let got;
    try {
      got = draw(S, state);
    } catch (err) {
      if (err instanceof Failure) fail(name, err.message);
      fail(name, "threw " + (err && err.message));
    }
    expectEqual(name, got, want);
  }
  for (const [name, call, type, message] of ERRORS) {
    const { S } = scripted(source, []);
    expectThrow(name, () => call(S), type, message);
  }
  // weights whose total is too large: uniform{0..2} draws 2 (top 2 bits 10)
  const { S } = scripted(source, [0x80000000]);
  const spec = {
    kind: "subset",
    p: 2,
    design: "independent",
    dummies: false,
    subsets: [
      [1, 0],
      [0, 1],
    ],
    weights: ["1", "1"],
    total: "3",
  };
  expectThrow("weights above their sum", () => S.release(spec, 0), "Error", "weights do not add up to their total");
}

function main() {
  const samplers = path.resolve(process.argv[2]);
  const checks = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
  const source = samplersSource(samplers);
  const runJobs = loadEnumerator(path.join(__dirname, "..", "..", "skprivate", "survey", "static", "exact_law.js"));
  // exact_law.js reads the samplers from a file: the source with the mutant on
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sampler-checks-"));
  const file = path.join(dir, "samplers.js");
  fs.writeFileSync(file, source);
  // the scripted checks run before the law check of this index (true: first)
  const at = checks.scripted === false ? -1 : checks.scripted === true || checks.scripted === undefined ? 0 : checks.scripted;
  let passed = 0;
  try {
    for (let i = 0; i <= checks.laws.length; i++) {
      if (i === Math.min(at, checks.laws.length)) {
        checkScripted(source);
        passed += SCRIPTED.length + ERRORS.length + 2;
      }
      if (i < checks.laws.length) {
        checkLaw(runJobs, file, checks.laws[i]);
        passed += 1;
      }
    }
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    process.stdout.write(err.message + "\n");
    process.exitCode = 1;
    return;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write("ok: " + passed + " exact checks passed\n");
}

if (require.main === module) {
  try {
    main();
  } catch (err) {
    process.stdout.write("ERROR " + (err && err.stack ? err.stack : err) + "\n");
    process.exitCode = 2;
  }
}
