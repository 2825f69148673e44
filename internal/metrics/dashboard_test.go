package metrics_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// TestDashboardUsesExportedMetrics checks that every metric the Grafana
// dashboard queries is one the collector exports.
func TestDashboardUsesExportedMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../docs/grafana/cairn.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	exported := map[string]bool{}
	ch := make(chan *prometheus.Desc, 128)
	go func() {
		metrics.NewCollector(fakeSource{}).Describe(ch)
		close(ch)
	}()
	nameRE := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		if m := nameRE.FindStringSubmatch(d.String()); m != nil {
			exported[m[1]] = true
		}
	}
	if len(exported) < 20 {
		t.Fatalf("only %d metric names described", len(exported))
	}
	useRE := regexp.MustCompile(`\b(?:redis|cairn)_[a-z0-9_]+`)
	queries := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			queries++
			for _, name := range useRE.FindAllString(tg.Expr, -1) {
				if !exported[name] {
					t.Errorf("panel %q queries %s, which is not exported", p.Title, name)
				}
			}
			if !strings.Contains(tg.Expr, `instance=~"$instance"`) {
				t.Errorf("panel %q: query %q is not filtered by $instance", p.Title, tg.Expr)
			}
		}
	}
	if queries == 0 {
		t.Fatal("the dashboard has no queries")
	}
}
