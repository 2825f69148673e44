package main

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestBitmapWorkloadsAgainstRedis runs every workload of the bitmaps
// scenario, tiny, against a real redis-server: what the harness sends is
// what Redis accepts, and every reply passes the workload's checks.
func TestBitmapWorkloadsAgainstRedis(t *testing.T) {
	srv, _ := testRedis(t, "redis")
	p, gc := srv.p, srv.c
	h := smokeHarness(t)
	set := h.set
	ctx := context.Background()
	desc := bitmapDescriptions(set)
	for _, w := range bitmapWorkloads {
		if desc[w.Name] == "" {
			t.Errorf("%s has no description", w.Name)
		}
		for _, pl := range set.Pipelines {
			if !w.runsAt(pl) {
				continue
			}
			if err := gc.FlushAll(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if w.Prefill != nil {
				if err := w.Prefill(ctx, gc, set, 20); err != nil {
					t.Fatalf("%s prefill: %v", w.Name, err)
				}
			}
			if ok, reason, err := probe(ctx, gc, w); !ok || err != nil {
				t.Fatalf("%s probe: %s %v", w.Name, reason, err)
			}
			r, err := w.Run(ctx, h, p, 20, pl)
			if err != nil {
				t.Fatalf("%s -P %d: %v", w.Name, pl, err)
			}
			if !(r.RPS > 0) || math.IsNaN(r.P50Ms) {
				t.Errorf("%s -P %d: %+v", w.Name, pl, r)
			}
		}
	}
	// The scans run at -P 1 only.
	for _, w := range bitmapWorkloads {
		if strings.HasSuffix(w.Name, "_SPARSE") && (w.runsAt(16) || !w.runsAt(1)) {
			t.Errorf("%s runs at %v", w.Name, w.Pipelines)
		}
	}
}
