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

// piOver2 is π/2 in three parts, enough to reduce |x| <= 4π exactly
// enough.
var piOver2 = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}

// sinCosDD returns sin and cos of x (|x| <= 8) in double-double.
func sinCosDD(x float64) (sin, cos dd) {
	k := math.Round(x / piOver2[0])
	// r = x - k·π/2, exactly enough: k is small.
	r := dd{x, 0}
	for _, p := range piOver2 {
		r = r.add(twoProd(-k, p))
	}
	// Taylor series of sin and cos at r, |r| <= π/4 (plus a hair).
	r2 := r.mul(r)
	s, c := r, dd{1, 0}
	term := r
	cterm := dd{1, 0}
	for n := 1; n <= 15; n++ {
		term = term.mul(r2).div(dd{-float64((2 * n) * (2*n + 1)), 0})
		cterm = cterm.mul(r2).div(dd{-float64((2*n - 1) * (2 * n)), 0})
		s = s.add(term)
		c = c.add(cterm)
	}
	switch int(k) & 3 {
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

// cSin is sin(x) correctly rounded, for |x| <= 8.
func cSin(x float64) float64 {
	if x == 0 || math.Abs(x) > 8 {
		return math.Sin(x)
	}
	s, _ := sinCosDD(x)
	return s.hi + s.lo
}

// cCos is cos(x) correctly rounded, for |x| <= 8.
func cCos(x float64) float64 {
	if math.Abs(x) > 8 {
		return math.Cos(x)
	}
	_, c := sinCosDD(x)
	return c.hi + c.lo
}

// cAsin is asin(y) correctly rounded, for 0 <= y <= 1: Go's estimate
// refined by a Newton step on sin in double-double.
func cAsin(y float64) float64 {
	if y <= 0 || y >= 1 || math.IsNaN(y) {
		return math.Asin(y)
	}
	t := dd{math.Asin(y), 0}
	for range 1 {
		s, c := sinCosDD(t.hi)
		// sin and cos of t.hi + t.lo, to first order in t.lo.
		s = s.add(c.mulF(t.lo))
		c = c.add(s.mulF(-t.lo))
		if c.hi == 0 {
			break
		}
		t = t.add(s.add(dd{-y, 0}).div(c).neg())
	}
	return t.hi + t.lo
}
