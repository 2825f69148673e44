// Package machine describes the computer a benchmark ran on — CPU, memory,
// kernel, and the disk under the data directories — for the header of
// RESULTS.md. Numbers without their machine cannot be compared.
//
// It reads Linux's /proc and /sys only; on anything else the fields it
// cannot learn say "unknown".
package machine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Info is what RESULTS.md reports about the machine.
type Info struct {
	CPUModel string
	Cores    int   // logical CPUs usable by the processes
	MemTotal int64 // bytes
	Kernel   string
	OS       string
	Disk     Disk
}

// Disk describes the file system holding the data directories.
type Disk struct {
	Path       string // the directory asked about
	MountPoint string
	Device     string
	FSType     string
	Kind       string // what the kernel reports: rotational or not (virtual disks often claim rotational)
	Model      string
	Size       int64 // bytes of the file system
	Free       int64 // bytes available to unprivileged users
}

// Collect gathers Info, with dataRoot the directory under which the servers
// keep their data.
func Collect(dataRoot string) Info {
	info := Info{
		CPUModel: "unknown",
		Cores:    runtime.NumCPU(),
		Kernel:   "unknown",
		OS:       runtime.GOOS,
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if v, ok := field(data, "model name", ':'); ok {
			info.CPUModel = v
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		if v, ok := field(data, "MemTotal", ':'); ok {
			if kb, err := strconv.ParseInt(strings.TrimSuffix(v, " kB"), 10, 64); err == nil {
				info.MemTotal = kb * 1024
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		info.Kernel = "Linux " + strings.TrimSpace(string(data))
	}
	if data, err := os.ReadFile("/etc/os-release"); err == nil {
		if v, ok := field(data, "PRETTY_NAME", '='); ok {
			info.OS = strings.Trim(v, `"`)
		}
	}
	info.Disk = collectDisk(dataRoot)
	return info
}

func collectDisk(path string) Disk {
	d := Disk{Path: path, Kind: "unknown", Device: "unknown", FSType: "unknown"}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
		d.Path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err == nil {
		d.Size = int64(st.Blocks) * st.Bsize
		d.Free = int64(st.Bavail) * st.Bsize
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return d
	}
	m, ok := FindMount(data, path)
	if !ok {
		return d
	}
	d.MountPoint, d.Device, d.FSType = m.MountPoint, m.Source, m.FSType
	if m.Major == 0 { // tmpfs, overlay and other devices without a disk
		if m.FSType == "tmpfs" || m.FSType == "ramfs" {
			d.Kind = "memory (not a disk)"
		}
		return d
	}
	sys := fmt.Sprintf("/sys/dev/block/%d:%d", m.Major, m.Minor)
	if real, err := filepath.EvalSymlinks(sys); err == nil {
		// A partition has no queue/ of its own; its disk is the parent.
		if _, err := os.Stat(filepath.Join(real, "queue")); err != nil {
			real = filepath.Dir(real)
		}
		if rot, err := os.ReadFile(filepath.Join(real, "queue", "rotational")); err == nil {
			switch strings.TrimSpace(string(rot)) {
			case "0":
				d.Kind = "non-rotational per the kernel"
			case "1":
				d.Kind = "rotational per the kernel"
			}
		}
		if model, err := os.ReadFile(filepath.Join(real, "device", "model")); err == nil {
			d.Model = strings.TrimSpace(string(model))
		}
	}
	return d
}

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	Major, Minor int
	MountPoint   string
	FSType       string
	Source       string
}

// FindMount returns the mount that holds path (an absolute, symlink-free
// path): the entry whose mount point is the longest prefix of it. Later
// entries win ties, as a later mount hides an earlier one.
func FindMount(mountinfo []byte, path string) (Mount, bool) {
	var best Mount
	found := false
	for line := range bytes.Lines(mountinfo) {
		f := strings.Fields(string(line))
		// id parent major:minor root mountpoint options [optional...] - fstype source superopts
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 7 || sep < 0 || sep+2 >= len(f) {
			continue
		}
		majMin := strings.SplitN(f[2], ":", 2)
		if len(majMin) != 2 {
			continue
		}
		maj, err1 := strconv.Atoi(majMin[0])
		minor, err2 := strconv.Atoi(majMin[1])
		if err1 != nil || err2 != nil {
			continue
		}
		mp := unescape(f[4])
		if !within(path, mp) {
			continue
		}
		if !found || len(mp) >= len(best.MountPoint) {
			best = Mount{Major: maj, Minor: minor, MountPoint: mp, FSType: f[sep+1], Source: unescape(f[sep+2])}
			found = true
		}
	}
	return best, found
}

func within(path, mountPoint string) bool {
	if mountPoint == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == mountPoint || strings.HasPrefix(path, mountPoint+"/")
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// field returns the value of the first "name<sep> value" line.
func field(data []byte, name string, sep byte) (string, bool) {
	for line := range bytes.Lines(data) {
		k, v, ok := bytes.Cut(line, []byte{sep})
		if ok && strings.TrimSpace(string(k)) == name {
			return strings.TrimSpace(string(v)), true
		}
	}
	return "", false
}
