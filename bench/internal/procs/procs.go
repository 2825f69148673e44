// Package procs starts and stops the servers under test (Cairn and
// redis-server) as child processes on loopback ports, and measures them from
// the outside: time to first PONG, peak resident memory, bytes on disk.
//
// A Group owns every process and temporary directory it hands out and its
// Close stops and removes them all, so a benchmark interrupted with Ctrl-C
// leaves nothing behind. Children also get SIGKILL from the kernel if the
// harness itself dies (Pdeathsig), the one case Close cannot cover.
package procs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec describes a server to start.
type Spec struct {
	Name    string // for messages: "cairn", "redis"
	Bin     string
	Args    []string
	Port    int    // the loopback port the server was told to listen on
	LogPath string // stdout and stderr go here
	// ReadyTimeout bounds the wait for the first PONG (default 3 min: Redis
	// loading a large RDB answers -LOADING until it is done).
	ReadyTimeout time.Duration
}

// Process is a running server.
type Process struct {
	Spec
	cmd     *exec.Cmd
	started time.Time
	// Ready is the time from exec to the first +PONG: what a client waits
	// after a restart before the server serves anything.
	Ready   time.Duration
	done    chan struct{}
	waitErr error
}

// Group tracks processes and temporary directories for cleanup.
type Group struct {
	mu    sync.Mutex
	procs []*Process
	dirs  []string
	// Keep leaves temporary directories in place on Close (for debugging).
	Keep bool
}

// TempDir creates a directory under parent that Close removes.
func (g *Group) TempDir(parent, pattern string) (string, error) {
	dir, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		return "", fmt.Errorf("create temporary directory: %w", err)
	}
	g.mu.Lock()
	g.dirs = append(g.dirs, dir)
	g.mu.Unlock()
	return dir, nil
}

// Start runs the server and waits until it answers PING with +PONG.
func (g *Group) Start(ctx context.Context, s Spec) (*Process, error) {
	if s.ReadyTimeout == 0 {
		s.ReadyTimeout = 3 * time.Minute
	}
	logf, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", s.Name, err)
	}
	defer logf.Close() // the child keeps its own descriptor
	cmd := exec.Command(s.Bin, s.Args...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	// Its own process group keeps a terminal's Ctrl-C away from the server,
	// so the harness decides how it stops; Pdeathsig covers the harness
	// being killed outright.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &Process{Spec: s, cmd: cmd, done: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	g.mu.Lock()
	g.procs = append(g.procs, p)
	g.mu.Unlock()

	if err := p.waitReady(ctx); err != nil {
		_, _ = p.Stop(5 * time.Second)
		return nil, err
	}
	return p, nil
}

// Addr returns the server's loopback address.
func (p *Process) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port)) }

// LogTail returns the last n lines of the server's log.
func (p *Process) LogTail(n int) string { return tail(p.LogPath, n) }

// Pid returns the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *Process) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(p.ReadyTimeout)
	for {
		if p.Exited() {
			return fmt.Errorf("%s exited before serving (%v); last log lines:\n%s", p.Name, p.waitErr, tail(p.LogPath, 10))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer PING within %v; last log lines:\n%s", p.Name, p.ReadyTimeout, tail(p.LogPath, 10))
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if pingOnce(p.Addr()) {
			p.Ready = time.Since(p.started)
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}

// pingOnce reports whether the server at addr answers +PONG. -LOADING (Redis
// reading its dump) and refused connections are "not yet".
func pingOnce(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	r := bufio.NewReader(c)
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		_ = c.SetDeadline(time.Now().Add(time.Second))
		if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
			return false
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		if strings.HasPrefix(line, "+PONG") {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// Stop asks the server to shut down (SIGTERM, which both servers treat as a
// clean shutdown) and waits up to timeout before killing it. It returns how
// long the clean stop took.
func (p *Process) Stop(timeout time.Duration) (time.Duration, error) {
	if p.Exited() {
		return 0, nil
	}
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return 0, fmt.Errorf("signal %s: %w", p.Name, err)
	}
	select {
	case <-p.done:
		return time.Since(start), nil
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return time.Since(start), fmt.Errorf("%s did not stop within %v; killed", p.Name, timeout)
	}
}

// Close stops every process still running and removes the temporary
// directories (unless Keep). It is safe to call more than once.
func (g *Group) Close() error {
	g.mu.Lock()
	procs, dirs := g.procs, g.dirs
	g.procs, g.dirs = nil, nil
	g.mu.Unlock()
	var errs []error
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Stop(15 * time.Second); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if !g.Keep {
		for _, d := range dirs {
			if err := os.RemoveAll(d); err != nil {
				errs = append(errs, fmt.Errorf("remove %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

// PeakRSS returns the process's peak resident set size (VmHWM) in bytes.
func (p *Process) PeakRSS() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, fmt.Errorf("read %s status: %w", p.Name, err)
	}
	return StatusBytes(data, "VmHWM")
}

// StatusBytes returns a "kB" field of a /proc/<pid>/status file in bytes.
func StatusBytes(status []byte, field string) (int64, error) {
	for line := range bytes.Lines(status) {
		name, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok || string(name) != field {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected value %q", field, strings.TrimSpace(string(rest)))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("%s: bad number %q", field, f[0])
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("%s not found", field)
}

// DirUsage is the space the files under a directory take.
type DirUsage struct {
	// Allocated is what du reports: blocks on disk, including space a
	// file system preallocated beyond a file's end (Pebble preallocates
	// its write-ahead logs).
	Allocated int64
	// Apparent is the sum of the files' sizes.
	Apparent int64
	// ByExt is Apparent split by file extension (".sst", ".log", "").
	ByExt map[string]int64
}

// DirSize measures the files under dir.
func DirSize(dir string) (DirUsage, error) {
	u := DirUsage{ByExt: map[string]int64{}}
	if _, err := os.Stat(dir); err != nil {
		return u, fmt.Errorf("measure %s: %w", dir, err)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // a compaction removed it meanwhile
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			u.Allocated += st.Blocks * 512
		} else {
			u.Allocated += info.Size()
		}
		if info.Mode().IsRegular() {
			u.Apparent += info.Size()
			u.ByExt[filepath.Ext(path)] += info.Size()
		}
		return nil
	})
	if err != nil {
		return u, fmt.Errorf("measure %s: %w", dir, err)
	}
	return u, nil
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
