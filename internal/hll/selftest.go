package hll

import (
	"encoding/binary"
	"fmt"
	"math"
)

// SelfTest is PFSELFTEST: it checks, as Redis's does, that dense registers
// keep their values without disturbing their neighbours, and that the
// sparse and dense forms fed the same 10^7 elements agree and stay within
// six standard errors of the truth at every power of ten. rnd supplies
// random numbers. It returns Redis's "TESTFAILED ..." text on failure.
func SelfTest(maxSparse int64, rnd func() uint64) error {
	d := make([]byte, DenseSize)
	copy(d, "HYLL")
	regs := d[HeaderSize:]
	var want [Registers]uint8
	for cycle := 0; cycle < 1000; cycle++ {
		for i := range want {
			want[i] = uint8(rnd() & regMax)
			denseSet(regs, i, want[i])
		}
		for i := range want {
			if v := denseGet(regs, i); v != want[i] {
				return fmt.Errorf("TESTFAILED Register %d should be %d but is %d", i, want[i], v)
			}
		}
	}
	clear(regs)
	s := New()
	relErr := 1.04 / math.Sqrt(Registers)
	seed := rnd()
	var ele [8]byte
	checkpoint := uint64(1)
	for j := uint64(1); j <= 10_000_000; j++ {
		binary.LittleEndian.PutUint64(ele[:], j^seed)
		d, _, _ = Add(d, ele[:], maxSparse)
		var err error
		if s, _, err = Add(s, ele[:], maxSparse); err != nil {
			return fmt.Errorf("TESTFAILED %w", err)
		}
		if j != checkpoint {
			continue
		}
		if int64(j) < maxSparse/2 && s[4] != Sparse {
			return fmt.Errorf("TESTFAILED sparse encoding not used")
		}
		cd, _ := Count(d)
		cs, err := Count(s)
		if err != nil || cd != cs {
			return fmt.Errorf("TESTFAILED dense/sparse disagree")
		}
		absErr := int64(checkpoint) - int64(cd)
		maxErr := uint64(math.Ceil(relErr * 6 * float64(checkpoint)))
		if j == 10 {
			maxErr = 1
		}
		if absErr < 0 {
			absErr = -absErr
		}
		if absErr > int64(maxErr) {
			return fmt.Errorf("TESTFAILED Too big error. card:%d abserr:%d", checkpoint, absErr)
		}
		checkpoint *= 10
	}
	return nil
}
