package geo

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigSin is sin(x) to 200 bits by its Taylor series.
func bigSin(x float64, cos bool) float64 {
	const prec = 200
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	x2 := new(big.Float).SetPrec(prec).Mul(bx, bx)
	term := new(big.Float).SetPrec(prec).Set(bx)
	if cos {
		term.SetFloat64(1)
	}
	sum := new(big.Float).SetPrec(prec).Set(term)
	for n := 1; n < 60; n++ {
		a, b := 2*n, 2*n+1
		if cos {
			a, b = 2*n-1, 2*n
		}
		term.Mul(term, x2)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(int64(-a*b)))
		sum.Add(sum, term)
	}
	f, _ := sum.Float64()
	return f
}

func TestCorrectlyRoundedSinCos(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		x := (r.Float64()*2 - 1) * math.Pi
		if got, want := cSin(x), bigSin(x, false); got != want {
			t.Fatalf("cSin(%v) = %v; want %v", x, got, want)
		}
		if got, want := cCos(x), bigSin(x, true); got != want {
			t.Fatalf("cCos(%v) = %v; want %v", x, got, want)
		}
	}
}

func TestCorrectlyRoundedAsin(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		y := r.Float64()
		a := cAsin(y)
		// a is right when sin of the doubles on either side of it
		// brackets y less tightly than sin(a) does.
		lo, hi := math.Nextafter(a, 0), math.Nextafter(a, 2)
		d := math.Abs(bigSin(a, false) - y)
		if math.Abs(bigSin(lo, false)-y) < d || math.Abs(bigSin(hi, false)-y) < d {
			t.Fatalf("cAsin(%v) = %v is not the nearest", y, a)
		}
	}
}
