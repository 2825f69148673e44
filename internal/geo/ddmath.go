package geo

import "math"

// Redis computes distances with the C library's sin, cos and asin, which
// in glibc 2.36 return the double nearest the exact result in all but
// about one case in a thousand (measured). Go's math package is accurate
// only to about one ulp and differs from glibc far more often, which the
// full-precision distances STOREDIST stores show. These versions evaluate
// in double-double arithmetic (about 106 bits) and round once: the
// correctly rounded result, glibc's in all but those rare cases.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) mulF(b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.add(b.mulF(q1).neg())
	q2 := r.hi / b.hi
	r = r.add(b.mulF(q2).neg())
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}

// piOver2 is π/2 in three parts, enough to reduce |x| <= 8 to
// [-π/4, π/4] with an error far below what the result needs.
var piOver2 = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}

// invFact holds 1/k! as double-doubles, k = 0..29.
var invFact = [30]dd{
	{1.0, 0.0}, // 1/0!
	{1.0, 0.0}, // 1/1!
	{0.5, 0.0}, // 1/2!
	{0.16666666666666666, 9.25185853854297e-18},       // 1/3!
	{0.041666666666666664, 2.3129646346357427e-18},    // 1/4!
	{0.008333333333333333, 1.1564823173178714e-19},    // 1/5!
	{0.001388888888888889, -5.300543954373577e-20},    // 1/6!
	{0.0001984126984126984, 1.7209558293420705e-22},   // 1/7!
	{2.48015873015873e-05, 2.1511947866775882e-23},    // 1/8!
	{2.7557319223985893e-06, -1.858393274046472e-22},  // 1/9!
	{2.755731922398589e-07, 2.3767714622250297e-23},   // 1/10!
	{2.505210838544172e-08, -1.448814070935912e-24},   // 1/11!
	{2.08767569878681e-09, -1.20734505911326e-25},     // 1/12!
	{1.6059043836821613e-10, 1.2585294588752098e-26},  // 1/13!
	{1.1470745597729725e-11, 2.0655512752830745e-28},  // 1/14!
	{7.647163731819816e-13, 7.03872877733453e-30},     // 1/15!
	{4.779477332387385e-14, 4.399205485834081e-31},    // 1/16!
	{2.8114572543455206e-15, 1.6508842730861433e-31},  // 1/17!
	{1.5619206968586225e-16, 1.1910679660273754e-32},  // 1/18!
	{8.22063524662433e-18, 2.2141894119604265e-34},    // 1/19!
	{4.110317623312165e-19, 1.4412973378659527e-36},   // 1/20!
	{1.9572941063391263e-20, -1.3643503830087908e-36}, // 1/21!
	{8.896791392450574e-22, -7.911402614872376e-38},   // 1/22!
	{3.868170170630684e-23, -8.843177655482344e-40},   // 1/23!
	{1.6117375710961184e-24, -3.6846573564509766e-41}, // 1/24!
	{6.446950284384474e-26, -1.9330404233703465e-42},  // 1/25!
	{2.4795962632247976e-27, -1.2953730964765229e-43}, // 1/26!
	{9.183689863795546e-29, 1.4303150396787322e-45},   // 1/27!
	{3.279889237069838e-30, 1.5117542744029879e-46},   // 1/28!
	{1.1309962886447716e-31, 1.0498015412959506e-47},  // 1/29!
}

// ddTerms is where the series switch from double to double-double
// arithmetic: the terms from the fifth on are below 3·10⁻⁸ of the
// result, so their rounding errors stay below 10⁻²⁴ of it.
const ddTerms = 5

// series evaluates Σ (-1)ⁿ r2ⁿ/(2n+odd)! for n = 0..14 (odd is 1 for
// sin(r)/r, 0 for cos r): the small terms in doubles, the first ones in
// double-double.
func series(r2 dd, odd int) dd {
	t := 0.0
	for n := 14; n >= ddTerms; n-- {
		c := invFact[2*n+odd].hi
		if n&1 == 1 {
			c = -c
		}
		t = c + r2.hi*t
	}
	acc := dd{t, 0}
	for n := ddTerms - 1; n >= 0; n-- {
		c := invFact[2*n+odd]
		if n&1 == 1 {
			c = c.neg()
		}
		acc = c.add(r2.mul(acc))
	}
	return acc
}

// reduce returns r = x - q·π/2 in [-π/4, π/4] (and a hair) and q mod 4.
func reduce(x float64) (dd, int) {
	if math.Abs(x) <= math.Pi/4 {
		return dd{x, 0}, 0
	}
	k := math.Round(x / piOver2[0])
	r := dd{x, 0}
	for _, p := range piOver2 {
		r = r.add(twoProd(-k, p))
	}
	return r, int(k) & 3
}

// sinDD and cosDD are sin and cos of a reduced argument.
func sinDD(r dd) dd { return r.mul(series(r.mul(r), 1)) }
func cosDD(r dd) dd { return series(r.mul(r), 0) }

// sinCosDD returns sin and cos of x (|x| <= 8) in double-double.
func sinCosDD(x float64) (sin, cos dd) {
	r, q := reduce(x)
	s, c := sinDD(r), cosDD(r)
	switch q {
	case 0:
		return s, c
	case 1:
		return c, s.neg()
	case 2:
		return s.neg(), c.neg()
	default:
		return c.neg(), s
	}
}

// cSin is sin(x) correctly rounded (but in cases rarer than 10⁻⁸), for
// |x| <= 8.
func cSin(x float64) float64 {
	if x == 0 || math.Abs(x) > 8 || math.IsNaN(x) {
		return math.Sin(x)
	}
	r, q := reduce(x)
	var v dd
	switch q {
	case 0:
		v = sinDD(r)
	case 1:
		v = cosDD(r)
	case 2:
		v = sinDD(r).neg()
	default:
		v = cosDD(r).neg()
	}
	return v.hi + v.lo
}

// cCos is cos(x) correctly rounded (but in cases rarer than 10⁻⁸), for
// |x| <= 8.
func cCos(x float64) float64 {
	if math.Abs(x) > 8 || math.IsNaN(x) {
		return math.Cos(x)
	}
	r, q := reduce(x)
	var v dd
	switch q {
	case 0:
		v = cosDD(r)
	case 1:
		v = sinDD(r).neg()
	case 2:
		v = cosDD(r).neg()
	default:
		v = sinDD(r)
	}
	return v.hi + v.lo
}

// cAsin is asin(y) correctly rounded (but in rare cases), for 0 <= y <=
// 1: Go's estimate refined by a Newton step on sin in double-double.
func cAsin(y float64) float64 {
	if y <= 0 || y >= 1 || math.IsNaN(y) {
		return math.Asin(y)
	}
	t := math.Asin(y)
	s, c := sinCosDD(t)
	if c.hi == 0 {
		return t
	}
	d := s.add(dd{-y, 0}).div(c)
	v := dd{t, 0}.add(d.neg())
	return v.hi + v.lo
}
