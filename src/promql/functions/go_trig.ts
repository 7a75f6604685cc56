// Trigonometric functions computed the way Go's math package computes them on amd64 (where
// they are plain Go, not assembly): Cephes polynomials after an extended-precision reduction
// by π/4, and arcus functions through a rational arctangent. JavaScript's Math.sin & co. use
// different kernels and differ in the last bit for many inputs; Prometheus prints results
// with every significant digit, so the bits matter. Arguments of 2^29 and more (where Go
// switches to a Payne–Hanek reduction) fall back to Math.*, which agrees there to within an
// ulp.

const PI4A = 0.7853981256484985; // π/4 split into three parts
const PI4B = 3.774894707930798e-8;
const PI4C = 2.6951514290790595e-15;
const FOUR_OVER_PI = 1.2732395447351628; // 4/π rounded once, as Go folds the constant
const REDUCE_THRESHOLD = 2 ** 29;

const SIN = [
  1.5896230157654656e-10, -2.5050747762857807e-8, 0.0000027557313621385722, -0.0001984126982958954,
  0.008333333333322118, -0.1666666666666663,
];
const COS = [
  -1.1358536521387682e-11, 2.087570084197473e-9, -2.755731417929674e-7, 0.000024801587288851704,
  -0.0013888888888873056, 0.041666666666666595,
];
const TAN_P = [-13093.693918138379, 1153516.6483858742, -17956525.197648488];
const TAN_Q = [
  1.0, 13681.296347069296, -1320892.3444021097, 25008380.18233579, -53869575.592945464,
];

/** Octant j (0–7, even) and the remainder z of |x| reduced by π/4 (|x| < 2^29). */
function reduce(x: number): [number, number] {
  let j = Math.trunc(x * FOUR_OVER_PI);
  let y = j;
  if (j % 2 === 1) {
    j++;
    y++;
  }
  j %= 8;
  return [j, x - y * PI4A - y * PI4B - y * PI4C];
}

function sinPoly(z: number, zz: number): number {
  return (
    z +
    z *
      zz *
      (((((SIN[0]! * zz + SIN[1]!) * zz + SIN[2]!) * zz + SIN[3]!) * zz + SIN[4]!) * zz + SIN[5]!)
  );
}

function cosPoly(zz: number): number {
  return (
    1.0 -
    0.5 * zz +
    zz *
      zz *
      (((((COS[0]! * zz + COS[1]!) * zz + COS[2]!) * zz + COS[3]!) * zz + COS[4]!) * zz + COS[5]!)
  );
}

export function goSin(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return NaN;
  let sign = x < 0;
  const ax = Math.abs(x);
  if (ax >= REDUCE_THRESHOLD) return Math.sin(x);
  const reduced = reduce(ax);
  let j = reduced[0];
  const z = reduced[1];
  if (j > 3) {
    sign = !sign;
    j -= 4;
  }
  const zz = z * z;
  const y = j === 1 || j === 2 ? cosPoly(zz) : sinPoly(z, zz);
  return sign ? -y : y;
}

export function goCos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const ax = Math.abs(x);
  if (ax >= REDUCE_THRESHOLD) return Math.cos(x);
  let sign = false;
  const reduced = reduce(ax);
  let j = reduced[0];
  const z = reduced[1];
  if (j > 3) {
    j -= 4;
    sign = !sign;
  }
  if (j > 1) sign = !sign;
  const zz = z * z;
  const y = j === 1 || j === 2 ? sinPoly(z, zz) : cosPoly(zz);
  return sign ? -y : y;
}

export function goTan(x: number): number {
  if (x === 0 || Number.isNaN(x)) return x;
  if (!Number.isFinite(x)) return NaN;
  const sign = x < 0;
  const ax = Math.abs(x);
  if (ax >= REDUCE_THRESHOLD) return Math.tan(x);
  // Unlike sin/cos, tan keeps the unreduced octant (only its bit 1 matters).
  let j = Math.trunc(ax * FOUR_OVER_PI);
  let yj = j;
  if (j % 2 === 1) {
    j++;
    yj++;
  }
  const z = ax - yj * PI4A - yj * PI4B - yj * PI4C;
  const zz = z * z;
  let y =
    zz > 1e-14
      ? z +
        z *
          ((zz * ((TAN_P[0]! * zz + TAN_P[1]!) * zz + TAN_P[2]!)) /
            ((((zz + TAN_Q[1]!) * zz + TAN_Q[2]!) * zz + TAN_Q[3]!) * zz + TAN_Q[4]!))
      : z;
  if ((j & 2) === 2) y = -1 / y;
  return sign ? -y : y;
}

function xatan(x: number): number {
  const z0 = x * x;
  const z =
    (z0 *
      ((((-0.8750608600031904 * z0 + -16.157537187333652) * z0 + -75.00855792314705) * z0 +
        -122.88666844901361) *
        z0 +
        -64.85021904942025)) /
    (((((z0 + 24.858464901423062) * z0 + 165.02700983169885) * z0 + 432.88106049129027) * z0 +
      485.3903996359137) *
      z0 +
      194.5506571482614);
  return x * z + x;
}

const MOREBITS = 6.123233995736766e-17; // π/2 = PIO2 + MOREBITS
const TAN3PIO8 = 2.414213562373095; // tan(3π/8)

/** Arctangent of x >= 0 after Cephes's range reduction. */
function satan(x: number): number {
  if (x <= 0.66) return xatan(x);
  if (x > TAN3PIO8) return Math.PI / 2 - xatan(1 / x) + MOREBITS;
  return Math.PI / 4 + xatan((x - 1) / (x + 1)) + 0.5 * MOREBITS;
}

export function goAtan(x: number): number {
  if (x === 0) return x;
  return x > 0 ? satan(x) : -satan(-x);
}

export function goAsin(x: number): number {
  if (x === 0) return x;
  const sign = x < 0;
  const ax = Math.abs(x);
  if (ax > 1) return NaN;
  let temp = Math.sqrt(1 - ax * ax);
  temp = ax > 0.7 ? Math.PI / 2 - satan(temp / ax) : satan(ax / temp);
  return sign ? -temp : temp;
}

export function goAcos(x: number): number {
  return Math.PI / 2 - goAsin(x);
}
