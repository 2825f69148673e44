package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/cairndb/cairn/bench/internal/procs"
)

// profileWindow is the length of each profile request. Go's pprof handlers
// profile for a fixed number of seconds, so a scenario of unknown length is
// covered by back-to-back windows that are merged at the end.
const profileWindow = 10 * time.Second

// profiler captures CPU and allocation profiles of one process from its
// net/http/pprof endpoint for as long as a scenario runs.
type profiler struct {
	name   string
	addr   string
	dir    string
	window time.Duration
	ctx    context.Context
	cancel context.CancelFunc
	stopCh chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	files  map[string][]string // "cpu", "allocs" → window files, in order
	errs   []error
}

// profileKinds maps a profile kind to its /debug/pprof/ path. The delta
// allocation profile (allocs?seconds=) counts only what was allocated during
// the window, like the CPU profile.
var profileKinds = []struct{ kind, path string }{{"cpu", "profile"}, {"allocs", "allocs"}}

func newProfiler(ctx context.Context, addr, dir, name string, window time.Duration) *profiler {
	pctx, cancel := context.WithCancel(ctx)
	pr := &profiler{
		name: name, addr: addr, dir: dir, window: window, ctx: pctx, cancel: cancel,
		stopCh: make(chan struct{}), files: map[string][]string{},
	}
	if err := os.MkdirAll(filepath.Join(dir, name+"-windows"), 0o755); err != nil {
		pr.errs = append(pr.errs, err)
		return pr
	}
	for _, k := range profileKinds {
		pr.wg.Add(1)
		go pr.loop(k.kind, k.path)
	}
	return pr
}

func (pr *profiler) loop(kind, path string) {
	defer pr.wg.Done()
	secs := max(int(pr.window/time.Second), 1)
	for i := 0; ; i++ {
		select {
		case <-pr.stopCh:
			return
		default:
		}
		url := fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", pr.addr, path, secs)
		file := filepath.Join(pr.dir, pr.name+"-windows", fmt.Sprintf("%s-%03d.pb.gz", kind, i))
		if err := fetch(pr.ctx, url, file); err != nil {
			if pr.ctx.Err() == nil {
				pr.mu.Lock()
				pr.errs = append(pr.errs, fmt.Errorf("%s profile: %w", kind, err))
				pr.mu.Unlock()
			}
			return
		}
		pr.mu.Lock()
		pr.files[kind] = append(pr.files[kind], file)
		pr.mu.Unlock()
	}
}

func fetch(ctx context.Context, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("GET %s: %s: %s", url, resp.Status, bytes.TrimSpace(body))
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stop lets the windows in flight finish (at most one window's length more,
// so the tail of the scenario is profiled too), then merges each kind's
// windows into <dir>/<name>-<kind>.pb.gz with `go tool pprof -proto`. It
// returns the merged files and whatever went wrong.
func (pr *profiler) stop() ([]string, []error) {
	close(pr.stopCh)
	done := make(chan struct{})
	go func() { pr.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(pr.window + 10*time.Second):
		pr.cancel()
		<-done
	}
	pr.cancel()
	var out []string
	for _, k := range profileKinds {
		files := pr.files[k.kind]
		if len(files) == 0 {
			continue
		}
		merged := filepath.Join(pr.dir, fmt.Sprintf("%s-%s.pb.gz", pr.name, k.kind))
		if err := mergeProfiles(merged, files); err != nil {
			pr.errs = append(pr.errs, err)
			continue
		}
		out = append(out, merged)
	}
	return out, pr.errs
}

func mergeProfiles(dst string, files []string) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", append([]string{"tool", "pprof", "-proto"}, files...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("merge profiles into %s: %w: %s", dst, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// profileHandle is a running profiler attached to a scenario.
type profileHandle struct {
	h  *harness
	pr *profiler
}

func pprofAddr(p *procs.Process) string {
	for i := 0; i+1 < len(p.Args); i++ {
		if p.Args[i] == "--pprof-addr" {
			return p.Args[i+1]
		}
	}
	return ""
}

// startProfiler profiles Cairn process p for the scenario name.
func (h *harness) startProfiler(ctx context.Context, p *procs.Process, name string) profileHandle {
	addr := pprofAddr(p)
	h.logf("%s: profiling Cairn via http://%s/debug/pprof/ in %v windows", name, addr, profileWindow)
	return profileHandle{h, newProfiler(ctx, addr, filepath.Join(h.out, "profiles"), name, profileWindow)}
}

func (ph profileHandle) stop() {
	files, errs := ph.pr.stop()
	for _, f := range files {
		ph.h.res.Profiles = append(ph.h.res.Profiles, f)
		ph.h.logf("%s: profile %s (go tool pprof -http=: %s)", ph.pr.name, f, f)
	}
	for _, err := range errs {
		ph.h.res.Errors = append(ph.h.res.Errors, fmt.Sprintf("%s: pprof: %v", ph.pr.name, err))
	}
}

// checkPprof fails early, before any scenario, when --pprof is asked of a
// Cairn that has no pprof endpoint.
func (h *harness) checkPprof(ctx context.Context) error {
	p, err := h.startCairn(ctx, "pprof-check", cairnConfig{appendfsync: "everysec", cacheSize: "8mb"})
	if err != nil {
		return err
	}
	defer p.Stop(30 * time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+pprofAddr(p)+"/debug/pprof/", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("--pprof: Cairn started with --pprof-addr but does not serve it: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("--pprof: http://%s/debug/pprof/ answered %s", pprofAddr(p), resp.Status)
	}
	return nil
}
