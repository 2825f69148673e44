//go:build !linux

package loadgen

import "time"

// pacer wakes an open-loop client at its scheduled send times. Outside
// Linux it is a runtime timer, which may fire up to a millisecond late when
// the process is idle (see pacer_linux.go); the lateness still counts
// against the latencies, as Lag shows.
type pacer struct{ t *time.Timer }

func newPacer() (*pacer, error) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &pacer{t: t}, nil
}

// waitUntil returns at t or later, or at once if t has passed.
func (p *pacer) waitUntil(t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	p.t.Reset(d)
	<-p.t.C
	return nil
}

func (p *pacer) Close() error {
	p.t.Stop()
	return nil
}
