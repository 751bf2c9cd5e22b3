/*
 * Exact samplers of skprivate's float-safe mechanisms, run on the
 * respondent's device.
 *
 * Every random bit comes from crypto.getRandomValues, never from the
 * pseudo-random generator of Math.  Every probability is an exact rational
 * (BigInt numerator and denominator, or a uniform choice among integers),
 * and every draw is exact:
 *
 *   uniform{0..m-1}  ceil(log2 m) random bits, rejected while >= m;
 *   Bern(a/b)        uniform{0..b-1} < a;
 *   Bern(exp(-g))    g = a/b in [0, 1]: K = 1, while Bern(g/K) K += 1,
 *                    true iff K is odd (the alternating series of exp(-g));
 *                    g > 1: floor(g) draws of Bern(exp(-1)) must all
 *                    succeed, then Bern(exp(-(g - floor(g))));
 *   Geom(exp(-s/t))  P(Y = y) = (1 - exp(-s/t)) exp(-y s/t): U uniform on
 *                    {0..t-1} until Bern(exp(-U/t)); V = number of
 *                    Bern(exp(-1)) successes before a failure;
 *                    Y = floor((U + t V) / s)  (Canonne, Kamath & Steinke,
 *                    "The discrete Gaussian for differential privacy", 2020).
 *
 * The mechanisms take their public description (grid, bounds, rationals)
 * from the fitted Python privatizer (skprivate.survey.mechanism_spec) and
 * release exactly the values the Python privatizer can release.  Works in a
 * browser (inline, no module system) and under Node (module.exports).
 */
(function (root) {
  "use strict";

  // -- random words ---------------------------------------------------------
  // getRandomValues fills at most 65,536 bytes per call: 16,384 words.
  const BUFFER_WORDS = 16384;
  const buffer = new Uint32Array(BUFFER_WORDS);
  let position = BUFFER_WORDS;

  function randomWord() {
    if (position === BUFFER_WORDS) {
      globalThis.crypto.getRandomValues(buffer);
      position = 0;
    }
    return buffer[position++];
  }

  function randomBit() {
    return randomWord() & 1;
  }

  const TWO32 = 4294967296;

  // Uniform integer in [0, m) for an integer Number 1 <= m <= 2**53.
  function uniformNumber(m) {
    if (!(Number.isSafeInteger(m - 1) && m >= 1)) {
      throw new RangeError("uniformNumber needs an integer 1 <= m <= 2**53");
    }
    if (m === 1) return 0;
    if (m <= TWO32) {
      const shift = Math.clz32(m - 1); // keep the bits of m - 1 only
      for (;;) {
        const r = shift === 32 ? 0 : randomWord() >>> shift;
        if (r < m) return r;
      }
    }
    const high = Math.floor((m - 1) / TWO32); // 1 <= high < 2**21
    const shift = Math.clz32(high);
    for (;;) {
      const r = (randomWord() >>> shift) * TWO32 + randomWord();
      if (r < m) return r;
    }
  }

  const SAFE = 9007199254740992n; // 2**53

  // Uniform BigInt in [0, m) for a BigInt m >= 1.
  function uniformBig(m) {
    if (m <= SAFE) return BigInt(uniformNumber(Number(m)));
    const bits = (m - 1n).toString(2).length;
    const words = Math.ceil(bits / 32);
    const top = bits - 32 * (words - 1);
    for (;;) {
      let r = BigInt(randomWord() >>> (32 - top));
      for (let i = 1; i < words; i++) r = (r << 32n) | BigInt(randomWord());
      if (r < m) return r;
    }
  }

  function bernoulli(num, den) {
    return uniformBig(den) < num;
  }

  function bernoulliExpAtMostOne(num, den) {
    let k = 1n;
    while (uniformBig(den * k) < num) k += 1n;
    return (k & 1n) === 1n;
  }

  // Bern(exp(-num/den)) for BigInts num >= 0, den >= 1.
  function bernoulliExp(num, den) {
    while (num > den) {
      if (!bernoulliExpAtMostOne(1n, 1n)) return false;
      num -= den;
    }
    return bernoulliExpAtMostOne(num, den);
  }

  // Y >= 0 with P(Y = y) = (1 - exp(-s/t)) exp(-y s/t); BigInts s, t >= 1.
  function geometricExp(s, t) {
    let u;
    for (;;) {
      u = uniformBig(t);
      if (bernoulliExp(u, t)) break;
    }
    let v = 0n;
    while (bernoulliExp(1n, 1n)) v += 1n;
    return (u + t * v) / s;
  }

  // Integer noise N with P(N = n) = integral of the Laplace density of scale
  // den/num over [n - 1/2, n + 1/2] (a Laplace draw rounded to the nearest
  // integer): P(N = 0) = 1 - exp(-g/2) and, given N != 0, |N| - 1 is
  // Geom(exp(-g)) and the sign is a fair coin, with g = num/den.
  function roundedLaplace(num, den) {
    if (!bernoulliExp(num, 2n * den)) return 0n;
    const magnitude = 1n + geometricExp(num, den);
    return randomBit() ? magnitude : -magnitude;
  }

  // Discrete Laplace: P(N = n) proportional to exp(-g |n|), g = num/den.
  function discreteLaplace(num, den) {
    for (;;) {
      const negative = randomBit();
      const magnitude = geometricExp(num, den);
      if (negative && magnitude === 0n) continue;
      return negative ? -magnitude : magnitude;
    }
  }

  // -- helpers --------------------------------------------------------------
  // numpy.rint: round half to even.
  function rint(v) {
    const r = Math.round(v);
    if (r - v === 0.5 && r % 2 !== 0) return r - 1;
    return r;
  }

  function clip(v, low, high) {
    return v < low ? low : v > high ? high : v;
  }

  function rational(text) {
    const parts = String(text).split("/");
    return [BigInt(parts[0]), BigInt(parts.length > 1 ? parts[1] : "1")];
  }

  // -- mechanisms -----------------------------------------------------------
  // LaplaceLDP(secure=True): k = clip(rint(x / step), kLow, kHigh), then
  // m = clip(k + N, kLow - margin, kHigh + margin), released as m * step.
  function laplace(spec, x) {
    const [gNum, gDen] = rational(spec.gamma);
    let k = clip(rint(x / spec.step), spec.k_low, spec.k_high);
    const noise =
      spec.noise === "discrete_laplace"
        ? discreteLaplace(gNum, gDen)
        : roundedLaplace(gNum, gDen);
    let m = BigInt(k) + noise;
    const lo = BigInt(spec.k_low - spec.margin);
    const hi = BigInt(spec.k_high + spec.margin);
    m = m < lo ? lo : m > hi ? hi : m;
    return Number(m) * spec.step;
  }

  // SquareWaveLDP(secure=True): k = clip(rint(v n), 0, n); with probability
  // 1 / (1 + c exp(-eps)), c = n / (2W + 1), an output index uniform within W
  // of k, otherwise uniform on the n indices farther away.  That coin: with
  // probability (2W + 1) / (2W + 1 + n) "near"; else "far" if
  // Bern(exp(-eps)); else try again.
  function squareWave(spec, x) {
    const n = spec.n_cells;
    const half = spec.half_cells;
    const width = 2 * half + 1;
    const [eNum, eDen] = rational(spec.epsilon);
    const v = (x - spec.low) / (spec.high - spec.low);
    const k = clip(rint(v * n), 0, n);
    let near;
    for (;;) {
      if (uniformNumber(width + n) < width) {
        near = true;
        break;
      }
      if (bernoulliExp(eNum, eDen)) {
        near = false;
        break;
      }
    }
    let j;
    if (near) {
      j = k - half + uniformNumber(width);
    } else {
      const u = uniformNumber(n);
      j = u < k ? u - half : u + half + 1;
    }
    return spec.low + j * spec.step;
  }

  // RVNSPerturber(secure=True): value index jx = clip(rint(x / h), ja, jb);
  // a band of D + 1 grid points s .. s + D holding jx, placed once per
  // respondent, then k reports uniform on the grid points of the report range
  // outside the band, released as i * h.  Boundary-safe placement (the
  // default): s uniform on jx - D .. jx, reports on ja - D .. jb + D.  The
  // paper's: s uniform on max(ja, jx - D) .. min(jx, jb - D), reports on
  // ja .. jb.
  function rvns(spec, x) {
    const ja = spec.ja;
    const jb = spec.jb;
    const D = spec.band;
    const jx = clip(rint(x / spec.step), ja, jb);
    let start;
    let first;
    let allowed;
    if (spec.placement === "boundary_safe") {
      start = jx - uniformNumber(D + 1);
      first = ja - D;
      allowed = jb - ja + D;
    } else if (spec.placement === "paper") {
      const lowest = Math.max(ja, jx - D);
      start = lowest + uniformNumber(Math.min(jx, jb - D) - lowest + 1);
      first = ja;
      allowed = jb - ja - D;
    } else {
      throw new Error("unknown band placement " + spec.placement);
    }
    const below = start - first;
    const out = [];
    for (let i = 0; i < spec.k; i++) {
      const r = uniformNumber(allowed);
      out.push((r < below ? first + r : first + D + 1 + r) * spec.step);
    }
    return out;
  }

  // Subset privacy: a subset of the p categories holding the respondent's
  // category, as 0/1 indicators (two dummy columns appended with dummies).
  function drawWeighted(weights, total) {
    let r = uniformBig(total);
    for (let i = 0; i < weights.length; i++) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    throw new Error("weights do not add up to their total");
  }

  function uniformSubset(p, smallest, largest) {
    for (;;) {
      const bits = [];
      let size = 0;
      for (let i = 0; i < p; i++) {
        const b = randomBit();
        bits.push(b);
        size += b;
      }
      if (size >= smallest && size <= largest) return bits;
    }
  }

  function drawIndependent(spec) {
    if (spec.design === "uniform") {
      return uniformSubset(spec.p, spec.sizes[0], spec.sizes[1]);
    }
    const weights = spec.weights.map(BigInt);
    return spec.subsets[drawWeighted(weights, BigInt(spec.total))].slice();
  }

  function subset(spec, code) {
    const p = spec.p;
    if (!(Number.isInteger(code) && code >= 0 && code < p)) {
      throw new RangeError("category index out of range");
    }
    let who = code;
    if (spec.dummies) {
      const [aNum, aDen] = rational(spec.alpha);
      const r = uniformBig(aDen);
      if (r < aNum) who = p;
      else if (r < 2n * aNum) who = p + 1;
    }
    let a;
    if (spec.design === "conditional") {
      const candidates = [];
      const weights = [];
      let total = 0n;
      spec.subsets.forEach(function (s, i) {
        if (s[code] === 1) {
          candidates.push(s);
          const w = BigInt(spec.weights[i]);
          weights.push(w);
          total += w;
        }
      });
      a = candidates[drawWeighted(weights, total)].slice();
    } else {
      const tilde = drawIndependent(spec);
      // A dummy respondent reports the drawn subset itself.
      const keep = who >= p || tilde[code] === 1;
      a = keep ? tilde : tilde.map((b) => 1 - b);
    }
    if (spec.dummies) {
      const dummy = who >= p ? who - p : randomBit();
      a.push(dummy === 0 ? 1 : 0, dummy === 1 ? 1 : 0);
    }
    return a;
  }

  // Frequency questions (skprivate.frequency): one stage of k-RR or unary
  // encoding.  A k-RR stage keeps its input category with probability keep,
  // else reports one of the k - 1 others uniformly; a unary stage sets every
  // output bit to 1 with probability one (input bit 1) or zero (input bit 0).
  // The first stage's input is the category (k-RR) or its one-hot bits.
  function frequencyStage(spec, stage, input) {
    if (spec.oracle === "krr") {
      const [kNum, kDen] = rational(stage.keep);
      if (bernoulli(kNum, kDen)) return input;
      const other = uniformNumber(spec.k - 1);
      return other < input ? other : other + 1;
    }
    const [oNum, oDen] = rational(stage.one);
    const [zNum, zDen] = rational(stage.zero);
    return input.map(function (b) {
      const hit = b === 1 ? bernoulli(oNum, oDen) : bernoulli(zNum, zDen);
      return hit ? 1 : 0;
    });
  }

  function frequencyFirst(spec, code) {
    if (!(Number.isInteger(code) && code >= 0 && code < spec.k)) {
      throw new RangeError("frequency question: category index out of range");
    }
    const single = oneStage(spec.oracle);
    if (single !== null) {
      if (spec.memoized) {
        const what = "frequency question: " + spec.oracle;
        throw new Error(what + " has no memoized form");
      }
      return single(spec, code);
    }
    let input = code;
    if (spec.oracle !== "krr") {
      input = [];
      for (let j = 0; j < spec.k; j++) input.push(j === code ? 1 : 0);
    }
    return frequencyStage(spec, spec.stages[0], input);
  }

  // -- frequency questions: local hashing and Hadamard response ------------
  // One stage, one report per value (never memoized); the keep coin is the
  // exact rational spec.stages[0].keep, drawn as k-RR's is.
  //
  // Local hashing (OLH, BLH; skprivate.frequency._hashing): the public seed
  // s is uniform on [0, (P - 1) P); a = 1 + floor(s / P), b = s mod P name
  // h_s(x) = ((a x + b) mod P) mod g.  With a, x, b below P, a x + b is at
  // most (P - 1) P, which must be a safe integer: every step is exact in
  // doubles (s - b is a multiple of P, so (s - b) / P is an exact integer).
  function hashSeeds(spec) {
    const p = spec.prime;
    const seeds = (p - 1) * p;
    if (!Number.isSafeInteger(seeds)) {
      throw new RangeError("local hashing: (P - 1) P must be a safe integer");
    }
    return seeds;
  }

  function hashBucket(spec, seed, code) {
    const p = spec.prime;
    const b = seed % p;
    const a = 1 + (seed - b) / p;
    return ((a * code + b) % p) % spec.buckets;
  }

  // [seed, bucket]: the category's bucket kept with probability keep, else
  // one of the g - 1 other buckets uniformly.
  function localHashing(spec, code) {
    const seed = uniformNumber(hashSeeds(spec));
    const bucket = hashBucket(spec, seed, code);
    const [kNum, kDen] = rational(spec.stages[0].keep);
    if (bernoulli(kNum, kDen)) return [seed, bucket];
    const other = uniformNumber(spec.buckets - 1);
    return [seed, other < bucket ? other : other + 1];
  }

  // Hadamard response (K = spec.order, a power of two above k): category x
  // owns the indices j where (x + 1) & j has an even number of set bits.
  // An index uniform on [0, K), then moved across by flipping the lowest set
  // bit of x + 1 (a bijection between the two halves) when it lies on the
  // wrong side: uniform in x's half with probability keep, else uniform in
  // the other half.
  function evenBits(v) {
    let odd = 0;
    for (let w = v >>> 0; w !== 0; w >>>= 1) odd ^= w & 1;
    return odd === 0;
  }

  function hadamardResponse(spec, code) {
    const row = code + 1;
    const index = uniformNumber(spec.order);
    const [kNum, kDen] = rational(spec.stages[0].keep);
    const inside = bernoulli(kNum, kDen);
    return inside === evenBits(row & index) ? index : index ^ (row & -row);
  }

  function oneStage(oracle) {
    if (oracle === "olh" || oracle === "blh") return localHashing;
    if (oracle === "hr") return hadamardResponse;
    return null;
  }

  // The answer a device keeps for a value across waves: a memoized frequency
  // question's permanent answer, any other question's release itself.
  function permanent(spec, value) {
    if (spec.kind === "frequency") return frequencyFirst(spec, value);
    return release(spec, value);
  }

  // What one wave sends from the kept answer: a fresh randomization of a
  // memoized frequency question's permanent answer, the kept answer itself
  // otherwise (a copy).
  function instant(spec, kept) {
    if (spec.kind === "frequency" && spec.memoized) {
      return frequencyStage(spec, spec.stages[1], kept);
    }
    return Array.isArray(kept) ? kept.slice() : kept;
  }

  // The reports of `waves` waves of one value sent from one kept answer.
  function releaseWaves(spec, value, waves) {
    const kept = permanent(spec, value);
    const out = [];
    for (let t = 0; t < waves; t++) out.push(instant(spec, kept));
    return out;
  }

  function release(spec, value) {
    switch (spec.kind) {
      case "frequency":
        return spec.memoized
          ? instant(spec, frequencyFirst(spec, value))
          : frequencyFirst(spec, value);
      case "laplace":
        return laplace(spec, value);
      case "square_wave":
        return squareWave(spec, value);
      case "rvns":
        return rvns(spec, value);
      case "subset":
        return subset(spec, value);
      default:
        throw new Error("no on-device sampler for " + spec.kind);
    }
  }

  // n releases of one value (for the tests of the samplers' laws).
  function releaseMany(spec, value, n) {
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = release(spec, value);
    return out;
  }

  const api = {
    uniformNumber: uniformNumber,
    uniformBig: uniformBig,
    bernoulli: bernoulli,
    bernoulliExp: bernoulliExp,
    geometricExp: geometricExp,
    roundedLaplace: roundedLaplace,
    discreteLaplace: discreteLaplace,
    rint: rint,
    release: release,
    releaseMany: releaseMany,
    permanent: permanent,
    instant: instant,
    releaseWaves: releaseWaves,
    hashBucket: hashBucket,
  };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  } else {
    root.SKPrivateSamplers = api;
  }
})(typeof globalThis !== "undefined" ? globalThis : this);
