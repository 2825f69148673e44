package machine

import (
	"os"
	"testing"
)

const mountinfo = `22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
23 22 0:21 / /proc rw,nosuid - proc proc rw
24 22 0:22 / /tmp rw,nosuid shared:5 - tmpfs tmpfs rw,size=100k
25 22 253:1 / /data rw,relatime - xfs /dev/vdb1 rw
26 25 253:2 / /data/my\040disk rw - ext4 /dev/vdc rw
27 22 0:23 / /tmpx rw - tmpfs tmpfs rw
28 22 0:22 / /tmp rw,nosuid - ext4 /dev/later rw
malformed line
`

func TestFindMount(t *testing.T) {
	tests := []struct {
		path      string
		wantMount string
		wantFS    string
		wantSrc   string
		wantMajor int
	}{
		{"/home/u/x", "/", "ext4", "/dev/vda", 253},
		{"/", "/", "ext4", "/dev/vda", 253},
		{"/data/db", "/data", "xfs", "/dev/vdb1", 253},
		{"/data/my disk/cairn", "/data/my disk", "ext4", "/dev/vdc", 253},
		{"/datax/y", "/", "ext4", "/dev/vda", 253}, // not under /data
		{"/tmpx/a", "/tmpx", "tmpfs", "tmpfs", 0},
		{"/tmp/a", "/tmp", "ext4", "/dev/later", 0}, // the later mount hides the earlier
	}
	for _, tc := range tests {
		m, ok := FindMount([]byte(mountinfo), tc.path)
		if !ok || m.MountPoint != tc.wantMount || m.FSType != tc.wantFS || m.Source != tc.wantSrc || m.Major != tc.wantMajor {
			t.Errorf("FindMount(%s) = %+v, %v; want %s %s %s major %d", tc.path, m, ok, tc.wantMount, tc.wantFS, tc.wantSrc, tc.wantMajor)
		}
	}
	if _, ok := FindMount([]byte("garbage\n"), "/x"); ok {
		t.Error("FindMount found a mount in garbage")
	}
}

func TestField(t *testing.T) {
	data := []byte("processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\nmodel name\t: second\n")
	if v, ok := field(data, "model name", ':'); !ok || v != "Some CPU @ 2.0GHz" {
		t.Errorf("field = %q, %v", v, ok)
	}
	if _, ok := field(data, "flags", ':'); ok {
		t.Error("found a missing field")
	}
}

func TestCollectOnThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/self/mountinfo"); err != nil {
		t.Skip("not Linux")
	}
	info := Collect(t.TempDir())
	if info.Cores < 1 || info.MemTotal <= 0 || info.Disk.MountPoint == "" || info.Disk.Size <= 0 {
		t.Errorf("Collect = %+v; want cores, memory, a mount point and a size", info)
	}
}
